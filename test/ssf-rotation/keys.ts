/**
 * Test-only keys of the rotating transmitter (ES256, generated once with jose): never used anywhere
 * else. `a` is the key rotated out, `b` the key rotated in, `c` the next one (first published while
 * the JWKS host is down). The JWKS host publishes their public halves as a test tells it.
 */
import type { JWK } from "jose";

export const KEYS: Record<"a" | "b" | "c", JWK> = {
  a: {
    kty: "EC",
    x: "U3vFPwm5tsVFHg3gYl8axnsgLS_vP3UsxjCdhnuOuAI",
    y: "qAIpCEruTLSGLWNczgJ8N-FPrA9cGQp_1q3xW8Upfo0",
    crv: "P-256",
    d: "KH97v-h7QPCU69xuGgjjEDk_mRgnyUwi0jQyzfOUTjA",
    kid: "rot-a",
    alg: "ES256",
  },
  b: {
    kty: "EC",
    x: "nMpZfFbr-LMfXFvI96N_xQZgJRsp-6g2zHujjpgm9U0",
    y: "UpQDp-KcGkk3Q9dKLQAmPITsFAvkf_O2Y9qbhM1onv8",
    crv: "P-256",
    d: "Dx5GuxLRVao7MbzyRZDUcY8UhPlgTQIlx_zm0UBV8UY",
    kid: "rot-b",
    alg: "ES256",
  },
  c: {
    kty: "EC",
    x: "qLdDCrnqnA8c7tu0Fi_h51drY3nExPWWM0U4qTlXLtA",
    y: "yr7fysxJR61hOnz-wKjd28IIuX4bPCjuJbWElu8wIuI",
    crv: "P-256",
    d: "rfXuPZhO-zVaTDPATASlXrrdFOMn7d7xkzv_Xor4-k8",
    kid: "rot-c",
    alg: "ES256",
  },
};

/** The public half of an EC JWK (what a JWKS publishes). */
export function publicOf(jwk: JWK): JWK {
  const { d: _d, ...rest } = jwk;
  return rest;
}

/**
 * Test-only keys of the reference transmitter (generated once with jose): never used anywhere else.
 * The worker (worker.ts) is configured with the public halves of `ec` and `rsa`; `rogue` is
 * published nowhere (a SET signed with it, under a published kid, must fail its signature).
 */
import type { JWK } from "jose";

export const PRIVATE_KEYS: Record<"ec" | "rsa" | "rogue", JWK> = {
  ec: {
    kty: "EC",
    x: "9sXfHwIRzgNSXTt2VIxNJ-jEXW2AIbSf0hpmTbiN0hs",
    y: "CnEzwGr-aqGVUQoNg8JEdCTJh8eOtyYG0tnAM0L25Uc",
    crv: "P-256",
    d: "tszi0-7IRZn0ufmk7VnrSHIQyt21mSe0uG6kv3l95Ro",
    kid: "ec-1",
    alg: "ES256",
  },
  rsa: {
    kty: "RSA",
    n: "3MgHo3bswVvuKqcfM24J7GxZq5bbHK41mdSDBqp-y1_criQ9Q8Jj46493axB_uhIclfK_WDjl4G1GULja2sIV1QN-tA8dMqF1vHS91wpnIm0V6gkKkVsjhgmKkME2bVkHSVTt6uZZnHFvH725G-cnOyEPakKZZtoCXnTcyez4akRBUxGaIUWpTRYZJiM7jYW2u1ip4YXT9U-W-OQmDAZpRXQavW5hUcSH9c8l1nBBHXCWhictr837Z3DLxDo8TRDEw9PRYsJc-C-9tjnxR67OYToy7slXYo3tE-9ikhgnvWVN6Fmy6YnElBu6_4-dKAkujBQmxmQomsGXJwPnuaSvQ",
    e: "AQAB",
    d: "DgIiG_DShlU9KBco_2QivI3GZcEBX5E9JOjLNHvSZjiLob_6ZCd8G4jlc4B3woL9_8VKw6dnYWhRM4xfLiRhJ9tVNL4MK_PiqJf45QmDuWMyXmJ0gvsbL2vgVguhDeg4tTG2XV_FsK6U14gtxaJAS2OlY10ro_VHlVxVuoeBHhb0IIaZaOFuO1Slk8fLcYYizARF3k0lWL5OzB1Hyf1LrWjKuFGrlqMxNQxOT6UVBsfkc9O5H_aZLLVga6NSz_KDiLJyVmXDDcdrDDsz10LZJDn9cvxXV8dulQhtiRFJiyZ6YrIjmTnDDyzsvfaoMRFaQbp6IrI5rDDcpZ1VFV1FOQ",
    p: "-h-nJd53UZJQgEnIgiBjDzHWYtNHulzcLpnuw7eOXefaIITaVRSMz8-62TA46NeGXTmDQ_4ttDJfE22bgd7GLhVY8SltfVnuDqo2FgmrsXuvB3FjGC8NPx2cxfhHWfndxSIyqacJ-uWuQQEo3wFV5LZ9RLpzAkqAK0bsxGdApqU",
    q: "4ffme01A4HA-lI7G6rmIs7VGePe__j05s52wp42Hsl5pGSbVUol1jCETLX2q3HZyrpsxge1E55XXY5WUN_lWfRVasjdh3w6LgIgXfqNR5EJ3wMGN2plcxBtyVe7yQlHrEZfHODAN4Tk9Y2CgserYZcd5nX9Tb9P7nH2XXSa6GDk",
    dp: "2ryNr1djH4oGLnrYB7yNBL-_zcMZakhFIdfqb2x563OUVXX5fggvsJjovYEnc7Dvx11Bh1ek3n5imRn0sdmBlNGEa7qgDsxznI2MKS-h39_bTHYDhCW5vuWFsbeTpoMWR4zFo4n591mfTyfVd1iypgZVfKJVa759Ydtvub7WUiU",
    dq: "rwV87pn6mxw1TIl-BsZn3JGWoRF8EubHL5j-__g-V2iKzOFoL0Kq2juwB_cjBRl1YEpyQSlOynUj3E05_VTRqZaFpi4BT2yLnqVKVVsYjczxxknknqFU2cxMdcTavYWHphvCQYHu7jiQlM1-CfBVZhfn2ZaKQL6XTzFzsMHTN_k",
    qi: "zBvOXwuabM_MOhm-hSMaUZeAMctKlul25caLsBlauebViNJZCBOdFxKCc-aduSNizJKJW8zkifNctnUG4FaIJV6ao4IXMffj1XPWG9yWo3EQXlH_t6DLGoD4CuLXRLJtS6OXnu9-xL0NjMOeAg-wda3DQlQbmdK3Z0ESeIkqhjY",
    kid: "rsa-1",
    alg: "RS256",
  },
  rogue: {
    kty: "EC",
    x: "mECSAoaKrBl0qpxMX9VZ0FfekESpudohbo0wSFEFVfI",
    y: "Djq85BPfxWb1pI6WUm8MatjMA_TcMJuY8SYIIR3U29E",
    crv: "P-256",
    d: "hSzELeTRFEag_7tlM0ZfWdakYt5TsGtnRkaoiTnGpBg",
    kid: "ec-1",
    alg: "ES256",
  },
};

/** The public half of a JWK (what a JWKS publishes). */
export function publicOf(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest } = jwk;
  return rest;
}

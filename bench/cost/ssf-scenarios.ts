/**
 * @module
 * The cost bench's shared-signals operations (issue 32): one session ended by the app's sign-out
 * (strict, as `revoke_one`, which is the same with no streams) by a person whose object hands its
 * events to the deployment's `SsfStreams`, with 1 and with 3 enabled streams
 * (`revoke_one_ssf_1_stream`, `revoke_one_ssf_3_streams`). Counted through to the pushes landing:
 * the revocation, the user's alarm handing the event over (one request to SsfStreams, `publish`,
 * which signs one SET per stream and sets its alarm), SsfStreams' alarm, and one outbound `fetch`
 * per SET, answered 202 by the reference RFC 8935 endpoint (outbound.js). Streams are off in the
 * template, so the classes get what `createAuthWorker({ ssf: { receivers } })` would set only while
 * a scenario runs (`SsfStreams.endpoints`, `UserSessions.ssfStreamsBinding`: read when an object is
 * built, and only this person's is built then), as `signInWithQueue` does with its Queue. Setup (the
 * streams on the raw stub, the session) is never measured; each checks that every stream got one
 * SET naming the session, verified by the reference verifier, or throws.
 */
import { env } from "cloudflare:workers";
import type { JSONWebKeySet } from "jose";
import { PUSH_DELIVERY } from "../../client-sdk/protocol/shared-signals";
import { type ReceiverGrant, SSF_STREAMS_OBJECT } from "../../durable-objects/ssf-streams";
import { EVENT_TYPES, verifySet } from "../../test/ssf-reference/set";
import { uncountedFetch } from "./bindings";
import type { RawCounts } from "./ledger";
import { allMarked, id, measure, ORIGIN, openSessions, person, stamp, userObject } from "./operations";
import { appSignOut, type Results } from "./person-scenarios";
import { SsfStreams, UserSessions } from "./worker";

/** Three receivers, each with one stream at most, under its own origin (outbound.js sends them all to the reference endpoint). */
const GRANTS: readonly ReceiverGrant[] = ["siem", "warehouse", "soc"].map((name) => {
  const origin = `https://${name}.receiver.test`;
  return { name, audience: origin, endpoints: [origin], maxStreams: 1 };
});

/** One push as the reference endpoint kept it (test/ssf-reference/push-receiver.js). */
interface Push {
  body: string;
  status: number;
  violations: string[];
}

/** A stream of the scenario: its receiver and where its pushes land. */
interface Stream {
  grant: ReceiverGrant;
  path: string;
}

const streamsObject = () => env.SSF_STREAMS.get(env.SSF_STREAMS.idFromName(SSF_STREAMS_OBJECT));

/** Setup: every receiver's streams deleted, then one new enabled stream for each of the first `n`. */
async function openStreams(n: number): Promise<Stream[]> {
  const object = streamsObject();
  for (const grant of GRANTS) {
    const listed = await object.readStreams(grant, null);
    for (const stream of "body" in listed ? (listed.body as { stream_id: string }[]) : []) {
      await object.deleteStream(grant, stream.stream_id);
    }
  }
  const streams: Stream[] = [];
  for (const grant of GRANTS.slice(0, n)) {
    const path = `/ssf/${grant.name}/${n}-${stamp}`;
    const answer = await object.createStream(
      grant,
      { delivery: { method: PUSH_DELIVERY, endpoint_url: `${grant.endpoints[0]}${path}` } },
      ORIGIN,
    );
    if (answer.status !== 201) throw new Error(`the stream of ${grant.name} was not created (${answer.status})`);
    streams.push({ grant, path });
  }
  return streams;
}

/** What the reference endpoint received on `path` (read through outbound.js, uncounted). */
async function pushesTo(path: string): Promise<Push[]> {
  const res = await uncountedFetch(`https://receiver.control/received?path=${encodeURIComponent(path)}`);
  return (await res.json()) as Push[];
}

/** The bench's signing key without its private part: the JWKS a receiver would fetch. */
function publicKeys(): JSONWebKeySet {
  const keys = JSON.parse(env.SSF_SIGNING_KEYS) as (JsonWebKey & { kid: string })[];
  return { keys: keys.map(({ d: _private, ...key }) => key) };
}

/** Every stream got exactly one push, accepted (202, no RFC 8935 violation), a verified session-revoked SET of `sessionId`. */
async function expectDelivered(streams: Stream[], sessionId: string): Promise<void> {
  const jwks = publicKeys();
  for (const { grant, path } of streams) {
    const pushes = await pushesTo(path);
    if (pushes.length !== 1) throw new Error(`the stream of ${grant.name} received ${pushes.length} pushes, not 1`);
    const [push] = pushes as [Push];
    if (push.status !== 202 || push.violations.length > 0) {
      throw new Error(`the push to ${grant.name} answered ${push.status}: ${push.violations.join("; ")}`);
    }
    const set = await verifySet(push.body, { jwks, issuer: ORIGIN, audience: grant.audience });
    const session = (set.claims.sub_id.session as { id?: string } | undefined)?.id;
    if (set.eventType !== EVENT_TYPES.sessionRevoked || session !== sessionId) {
      throw new Error(`the push to ${grant.name} is not the session's session-revoked SET (${set.eventType})`);
    }
  }
}

/** The app's sign-out of one session of a fresh person, with `n` enabled streams; `base` is `revoke_one`. */
async function revokeWithStreams(n: number, base: RawCounts): Promise<RawCounts> {
  const streams = await openStreams(n);
  const user = id(`revoke_ssf_${n}`);
  const { ids, cookies } = await openSessions(person(user), 1);
  const counts = await measure(() => appSignOut("strict", cookies[0]!), {
    done: async () => {
      if ((await userObject(user).stats()).pendingDeliveries !== 0) return false;
      if ((await streamsObject().overview()).some((stream) => stream.pending > 0)) return false;
      for (const { path } of streams) if ((await pushesTo(path)).length === 0) return false;
      return true;
    },
  });
  if (!(await allMarked(ids))) throw new Error("the signed-out session's record is not a revoked mark");
  await expectDelivered(streams, ids[0]!);
  const pushes = counts.fetchSubrequests - base.fetchSubrequests;
  if (pushes !== n) throw new Error(`${n} streams took ${pushes} outbound requests beyond revoke_one's, not ${n}`);
  return counts;
}

/** `revoke_one_ssf_1_stream` and `revoke_one_ssf_3_streams`, with streams on for their span only. */
export async function revokeOneWithStreams(results: Results): Promise<void> {
  const users = UserSessions as unknown as { ssfStreamsBinding?: string | null };
  const streams = SsfStreams as unknown as {
    endpoints?: Readonly<Record<string, readonly string[]>>;
  };
  const base = results.get("revoke_one");
  if (!base) throw new Error("revoke_one (the same sign-out without streams) must be measured first");
  users.ssfStreamsBinding = "SSF_STREAMS";
  streams.endpoints = Object.fromEntries(GRANTS.map((g) => [g.name, g.endpoints]));
  try {
    results.set("revoke_one_ssf_1_stream", await revokeWithStreams(1, base));
    results.set("revoke_one_ssf_3_streams", await revokeWithStreams(3, base));
  } finally {
    delete users.ssfStreamsBinding;
    delete streams.endpoints;
  }
}

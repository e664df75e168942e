/**
 * WorkOS's emulator (`workos/emulate`, see install.ts) with Gatehouse's demo people in it: the same
 * people, organizations and roles as our local provider (scripts/local-idp/demo-data.ts), plus
 * one person whose sign-ins are an operator's impersonation. The emulator generates every id, so
 * the world answers which id each demo person got. Its webhook deliveries go to a relay on
 * loopback that signs them again with a millisecond timestamp, as WorkOS and its SDKs do (the
 * emulator's signer writes seconds, which `constructEvent` and our worker refuse), keeps them for
 * tests, and forwards them to a worker when asked. Node only; listens on loopback.
 */
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DEMO_MEMBERSHIPS, DEMO_ORGANIZATIONS, DEMO_USERS } from "../local-idp/demo-data.ts";
import { ensureWorkosEmulator } from "./install.ts";

/** The person whose sign-ins the emulator marks as an impersonation (seed `impersonator`). */
export const IMPERSONATED = { email: "ivy@acme.test", operator: "support@gatehouse.test", reason: "Support ticket 42" };

/** A delivery the relay received, signed again in milliseconds (`WorkOS-Signature: t=<ms>,v1=<hex>`). */
export interface RelayedDelivery {
  body: string;
  signature: string;
  event: string;
}

export interface WorkosEmulatorWorld {
  /** `http://127.0.0.1:<port>`: the emulator's API (and hosted authorize). */
  url: string;
  hostname: string;
  port: number;
  apiKey: string;
  /** The client id the worker uses (the emulator checks none; it becomes the tokens' `aud`). */
  clientId: string;
  /** The emulator's id for each demo person, by our local provider's id and by email. */
  userIds: Record<string, string>;
  /** The emulator's id for each demo organization, by our local provider's id. */
  organizationIds: Record<string, string>;
  /** The emulator's membership id, by `<our user id>:<our organization id>`. */
  membershipIds: Record<string, string>;
  /** Where the relay listens (`GET /deliveries` lists what it received). */
  relayUrl: string;
  webhookSecret: string;
  deliveries(): RelayedDelivery[];
  close(): Promise<void>;
}

export interface WorldOptions {
  /** Secret of the webhook endpoint created in the emulator (the worker's `IDENTITY_WEBHOOK_SECRET`). */
  webhookSecret?: string;
  /** POST every relayed delivery here too (a running worker's `/webhooks/identity`). */
  forwardTo?: string;
  clientId?: string;
  log?: (line: string) => void;
}

interface Emulator {
  url: string;
  port: number;
  apiKey: string;
  close(): Promise<void>;
}

/** Signs a delivery the way WorkOS does: HMAC-SHA256 over `<t>.<body>`, t in milliseconds. */
export function workosSignature(secret: string, body: string, at = Date.now()): string {
  return `t=${at},v1=${createHmac("sha256", secret).update(`${at}.${body}`).digest("hex")}`;
}

export async function startWorkosEmulatorWorld(options: WorldOptions = {}): Promise<WorkosEmulatorWorld> {
  const entry = ensureWorkosEmulator(options.log);
  const { createEmulator } = (await import(entry)) as {
    createEmulator(o: { port: number; seed: Record<string, unknown> }): Promise<Emulator>;
  };
  const webhookSecret = options.webhookSecret ?? randomBytes(32).toString("base64url");
  const delivered: RelayedDelivery[] = [];
  const relay = await listen(
    createServer((req, res) => {
      if (req.method === "GET" && req.url === "/deliveries") {
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(delivered));
        return;
      }
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        const signature = workosSignature(webhookSecret, body);
        let event = "";
        try {
          event = String((JSON.parse(body) as { event?: unknown }).event ?? "");
        } catch {
          // kept as received: the worker refuses it
        }
        delivered.push({ body, signature, event });
        res.writeHead(200).end();
        if (options.forwardTo) {
          fetch(options.forwardTo, {
            method: "POST",
            headers: { "Content-Type": "application/json", "WorkOS-Signature": signature },
            body,
          }).catch((err: unknown) => options.log?.(`gatehouse: relaying a WorkOS event failed: ${String(err)}`));
        }
      });
    }),
  );
  const emulator = await createEmulator({
    port: 0,
    seed: {
      users: [
        ...DEMO_USERS.map((u) => ({
          email: u.email,
          first_name: u.firstName,
          last_name: u.lastName,
          email_verified: true,
        })),
        {
          email: IMPERSONATED.email,
          first_name: "Ivy",
          last_name: "Impersonated",
          email_verified: true,
          impersonator: { email: IMPERSONATED.operator, reason: IMPERSONATED.reason },
        },
      ],
      organizations: DEMO_ORGANIZATIONS.map((o) => ({
        name: o.name,
        external_id: o.externalId,
        domains: [{ domain: o.domain, state: "verified" }],
      })),
      roles: [
        { slug: "admin", name: "Admin" },
        { slug: "member", name: "Member" },
      ],
    },
  });
  const url = `http://127.0.0.1:${emulator.port}`;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${emulator.apiKey}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`WorkOS emulator ${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return (text ? JSON.parse(text) : null) as T;
  };
  try {
    const users = (await api<{ data: { id: string; email: string }[] }>("GET", "/user_management/users?limit=100"))
      .data;
    const orgs = (await api<{ data: { id: string; name: string }[] }>("GET", "/organizations?limit=100")).data;
    const userIds: Record<string, string> = {};
    for (const u of users) userIds[u.email] = u.id;
    for (const d of DEMO_USERS) userIds[d.id] = userIds[d.email]!;
    const organizationIds: Record<string, string> = {};
    for (const o of DEMO_ORGANIZATIONS) organizationIds[o.id] = orgs.find((x) => x.name === o.name)!.id;
    const membershipIds: Record<string, string> = {};
    for (const m of [
      ...DEMO_MEMBERSHIPS,
      { userId: IMPERSONATED.email, organizationId: DEMO_ORGANIZATIONS[0]!.id, role: "member" },
    ]) {
      const created = await api<{ id: string }>("POST", "/user_management/organization_memberships", {
        user_id: userIds[m.userId],
        organization_id: organizationIds[m.organizationId],
        role_slug: m.role,
      });
      membershipIds[`${m.userId}:${m.organizationId}`] = created.id;
    }
    await api("POST", "/webhook_endpoints", { endpoint_url: relay.url, secret: webhookSecret });
    return {
      url,
      hostname: "127.0.0.1",
      port: emulator.port,
      apiKey: emulator.apiKey,
      clientId: options.clientId ?? "client_emulated",
      userIds,
      organizationIds,
      membershipIds,
      relayUrl: relay.url,
      webhookSecret,
      deliveries: () => [...delivered],
      close: async () => {
        await emulator.close();
        await relay.close();
      },
    };
  } catch (err) {
    await emulator.close();
    await relay.close();
    throw err;
  }
}

async function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * README's "Shared signals out" blocks, run: the `http` request a receiver sends to create its
 * stream goes to the worker as written (the placeholders filled in) and is answered 201 with the
 * configuration it describes; the `toml` block binds the class this project's wrangler.toml binds,
 * under the same name (the tests here run that config).
 */
import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, expect, it } from "vitest";
import readme from "../../README.md?raw";
import { deleteAllStreams } from "./helpers";
import { ISSUER, SIEM } from "./worker";
import wrangler from "./wrangler.toml?raw";

/** The README block of `lang` inside the "Shared signals out" section. */
function block(lang: string): string {
  const section = readme.slice(readme.indexOf("## Shared signals out"), readme.indexOf("## Provider webhooks"));
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section);
  expect(match, `a ${lang} block in "Shared signals out"`).not.toBeNull();
  return match![1]!;
}

afterEach(deleteAllStreams);

it("the create-stream request README shows is answered 201 with the configuration it describes", async () => {
  const [head, body] = block("http").split("\n\n") as [string, string];
  const [requestLine, ...headerLines] = head.split("\n");
  const [method, path] = requestLine!.split(" ") as [string, string];
  const headers = new Headers();
  for (const line of headerLines) {
    const [name, ...value] = line.split(": ");
    headers.set(name!, value.join(": ").replace("<SSF_TOKEN_SIEM>", env.SSF_TOKEN_SIEM));
  }
  expect(headers.get("Host")).toBe(new URL(ISSUER).host);
  const res = await SELF.fetch(`${ISSUER}${path}`, {
    method,
    headers,
    body: body.replace("<what its endpoint expects>", "inbox-token"),
  });
  expect(res.status).toBe(201);
  const config = (await res.json()) as Record<string, unknown>;
  expect(config).toMatchObject({
    iss: ISSUER,
    aud: SIEM,
    delivery: { method: "urn:ietf:rfc:8935", endpoint_url: `${SIEM}/ssf/events` },
    events_delivered: ["https://schemas.openid.net/secevent/caep/event-type/session-revoked"],
  });
});

it("the toml block binds SsfStreams as SSF_STREAMS, as the config these tests run does", () => {
  const toml = block("toml");
  expect(toml).toContain('[[durable_objects.bindings]]\nname = "SSF_STREAMS"\nclass_name = "SsfStreams"');
  expect(wrangler).toContain('[[durable_objects.bindings]]\nname = "SSF_STREAMS"\nclass_name = "SsfStreams"');
  expect(toml).toMatch(/new_sqlite_classes = \["SsfStreams"\]/);
  expect(wrangler).toMatch(/new_sqlite_classes = \[[^\]]*"SsfStreams"/);
});

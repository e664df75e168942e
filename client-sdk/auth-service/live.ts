/**
 * @module
 * The live channel in a consuming app's pages (`ServiceAuthMiddleware`'s `live` option). For a
 * page navigation it mints a ticket over RPC while the handler renders (in parallel: no added wait
 * in the common case), then writes `<script src="<auth worker>/live.js" data-…>` into the HTML
 * with `HtmlTransformer`, and lets the page's Content-Security-Policy load that script and open
 * that socket (`allowContentSources`). The ticket travels in an attribute, never in a URL. A tab
 * that later needs a fresh one (it became the socket's holder after another tab closed) POSTs to
 * `ticketPath`, which this middleware answers for its own origin's script only.
 */
import { acceptsHtml } from "../auth-context";
import { jsonError } from "../core/errors";
import { allowContentSources } from "../core/security-headers";
import { HtmlTransformer } from "../html/transformer";
import { AuthServiceError } from "./errors";
import type { LiveTicket, ServiceSessionResolver } from "./types";

export interface LiveOptions {
  /**
   * Where a tab gets a fresh ticket (a POST with `X-Gatehouse-Live: 1`), answered by this
   * middleware: mount it on that path too. Default `/__gatehouse/live-ticket`.
   */
  ticketPath?: string;
}

export const DEFAULT_TICKET_PATH = "/__gatehouse/live-ticket";

export class LiveChannel {
  readonly #mint: (request: Request) => Promise<LiveTicket | null>;
  readonly #ticketPath: string;

  constructor(resolver: ServiceSessionResolver, options: LiveOptions) {
    const mint = resolver.liveTicket?.bind(resolver);
    if (!mint) {
      throw new TypeError(
        "ServiceAuthMiddleware: the live option needs a resolver with liveTicket (AuthServiceClient)",
      );
    }
    const path = options.ticketPath ?? DEFAULT_TICKET_PATH;
    if (!/^\/[A-Za-z0-9._~/-]*$/.test(path))
      throw new TypeError("live.ticketPath must be a path such as /__gatehouse/live-ticket");
    this.#mint = mint;
    this.#ticketPath = path;
  }

  isTicketRequest(request: Request): boolean {
    return request.method === "POST" && new URL(request.url).pathname === this.#ticketPath;
  }

  /** A fresh ticket for this origin's own script; 401 without a session. */
  async ticketResponse(request: Request): Promise<Response> {
    // A custom header: no form can send it, and a fetch from another origin with it needs a CORS
    // preflight that nobody answers. Fetch metadata refuses the rest outright.
    if (request.headers.get("X-Gatehouse-Live") !== "1" || request.headers.get("Sec-Fetch-Site") === "cross-site") {
      return jsonError(403, "forbidden", "Live tickets are for this site's own pages");
    }
    let ticket: LiveTicket | null;
    try {
      ticket = await this.#mint(request);
    } catch (err) {
      if (!(err instanceof AuthServiceError)) throw err;
      return jsonError(err.status, err.code, err.message);
    }
    if (!ticket) return jsonError(401, "unauthenticated", "Sign in first");
    return Response.json(
      { ticket: ticket.ticket, expiresAt: ticket.expiresAt },
      { headers: { "Cache-Control": "no-store" } },
    );
  }

  /** Runs the handler; a page it answers gets the live script, with a ticket minted meanwhile. */
  async around(request: Request, run: () => Promise<Response>): Promise<Response> {
    const navigation = request.method === "GET" && acceptsHtml(request);
    if (!navigation) return run();
    const minting = this.#mint(request).catch((err: unknown) => {
      // The page still works without the channel; the next navigation tries again.
      console.warn("gatehouse: no live ticket for this page", err instanceof Error ? err.message : err);
      return null;
    });
    const response = await run();
    if (response.status !== 200 || !/^text\/html\b/i.test(response.headers.get("Content-Type") ?? "")) {
      return response;
    }
    const ticket = await minting;
    if (!ticket) return response;
    // The script itself (not its whole origin) and the channel's origin.
    allowContentSources(request, {
      scriptSrc: [`${new URL(ticket.scriptUrl).origin}${new URL(ticket.scriptUrl).pathname}`],
      connectSrc: [new URL(ticket.channelUrl).origin],
    });
    const page = new HtmlTransformer()
      .injectScript(ticket.scriptUrl, "body", {
        data: {
          channel: ticket.channelUrl,
          user: ticket.userId,
          ticket: ticket.ticket,
          "ticket-url": this.#ticketPath,
          "signed-out": ticket.signedOutUrl,
        },
        defer: true,
      })
      .transform(response);
    // The page now holds a ticket and a user id: never stored by a cache, whatever the handler said.
    page.headers.set("Cache-Control", "private, no-store");
    return page;
  }
}

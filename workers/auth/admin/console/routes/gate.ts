/**
 * @module
 * The admin console's gate: its script, the CSRF check on every console path, `/admin` (the gate
 * for nobody, the home with the operator log for an operator) and the guard that lets only an
 * operator past it to `/admin/console/*` (break glass excepted: it is how one becomes an operator).
 */
import type { Application } from "../../../../../client-sdk/core/application";
import { csrfToken } from "../../../middleware/csrf";
import { errorPage } from "../../../pages";
import { CONSOLE_SCRIPT, CONSOLE_SCRIPT_TYPE } from "../script";
import { BREAK_GLASS_PATH, CONSOLE_PATH, CONSOLE_SCRIPT_PATH, gateBody, homeBody } from "../views";
import type { ConsoleContext } from "./context";

export function registerConsoleGate<E extends object>(app: Application<E>, shared: ConsoleContext): void {
  const hono = app.hono;

  hono.get(CONSOLE_SCRIPT_PATH, () => {
    return new Response(CONSOLE_SCRIPT, {
      headers: {
        "Content-Type": CONSOLE_SCRIPT_TYPE,
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
      },
    });
  });
  for (const path of [CONSOLE_PATH, `${CONSOLE_PATH}/console/*`]) hono.use(path, (c, next) => shared.csrf()(c, next));

  // The gate and the home: who is here decides which.
  hono.get(CONSOLE_PATH, async (c) => {
    const request = c.req.raw;
    const operator = await shared.access(request);
    if (operator instanceof Response) return operator;
    if (operator === null) {
      return shared.html(
        c,
        "Admin console",
        gateBody({ csrf: csrfToken(request), breakGlass: shared.tokens.length > 0, signedIn: false }),
      );
    }
    const notice = new URL(request.url).searchParams.get("notice");
    return shared.html(
      c,
      "Admin console",
      homeBody({
        operator,
        csrf: csrfToken(request),
        log: await shared.log().recent(20),
        organizations: shared.sessions().hasOrganizations,
        notice: notice === "not-found" ? "Nobody with that email or id has signed in here." : null,
      }),
    );
  });

  // Everything else needs an operator.
  hono.use(`${CONSOLE_PATH}/console/*`, async (c, next) => {
    if (c.req.path === BREAK_GLASS_PATH) return next();
    const operator = await shared.access(c.req.raw);
    if (operator instanceof Response) return operator;
    if (operator === null) {
      if (c.req.method === "GET") return new Response(null, { status: 302, headers: { Location: CONSOLE_PATH } });
      return errorPage(c.req.raw, 401, "unauthenticated", "Open the console first.");
    }
    await next();
  });
}

/**
 * @module
 * Break glass: an admin token typed into the gate's form opens a console session (`../break-glass.ts`
 * keeps it), and the console's sign-out ends one. Both are on the operator log. A signed-in admin's
 * sign-out only leaves the console; their session with the site stays.
 */
import type { Application } from "../../../../../client-sdk/core/application";
import { errorPage } from "../../../pages";
import { matchAdminToken } from "../../tokens";
import { BREAK_GLASS_PATH, CONSOLE_PATH } from "../views";
import type { ConsoleContext } from "./context";

export function registerBreakGlass<E extends object>(app: Application<E>, shared: ConsoleContext): void {
  const hono = app.hono;
  const { tokens } = shared;

  hono.post(BREAK_GLASS_PATH, async (c) => {
    const request = c.req.raw;
    if (tokens.length === 0) return errorPage(request, 404, "not_found", "There is no such page.");
    const form = await request.formData().catch(() => new FormData());
    const given = form.get("token");
    const label = typeof given === "string" && given.length <= 512 ? await matchAdminToken(given, tokens) : null;
    if (label === null) {
      return errorPage(request, 403, "forbidden", "That admin token is not valid.", { title: "Not opened" });
    }
    const { setCookie } = await shared.breakGlass().open(label);
    await shared.log().record({
      action: "break_glass.opened",
      operator: `break-glass:${label}`,
      target: null,
      receiptId: null,
    });
    return new Response(null, { status: 303, headers: { Location: CONSOLE_PATH, "Set-Cookie": setCookie } });
  });

  hono.post(`${CONSOLE_PATH}/console/sign-out`, async (c) => {
    const operator = shared.operatorOf(c);
    const headers = new Headers({ Location: CONSOLE_PATH });
    if (operator.kind === "break-glass") {
      headers.append("Set-Cookie", await shared.breakGlass().close(c.req.raw));
      await shared.log().record({
        action: "break_glass.closed",
        operator: operator.label,
        target: null,
        receiptId: null,
      });
    }
    return new Response(null, { status: 303, headers });
  });
}

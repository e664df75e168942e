/**
 * The help text of `gatehouse-workers`: commands, flags and defaults, in one place so `--help`,
 * a bare invocation and an unknown command print the same thing. Text only; never parses.
 */

export const USAGE = `Usage: gatehouse-workers <command> [options]

Commands:
  init <dir> [--name <worker-name>] [--force]
      Write a ready auth worker project into <dir> (package.json, wrangler.jsonc, src/index.ts,
      .dev.vars with fresh secrets, README.md). Refuses a non-empty <dir> unless --force, and
      never overwrites a file. The worker name defaults to the directory's name. Its .dev.vars
      lets sign-ins return to the first app (AUTH_RETURN_ORIGINS=http://127.0.0.1:8789).

  init --app <dir> --auth <auth-dir> [--name <worker-name>] [--port 8789] [--force]
      Write a ready app worker project into <dir>, whose pages and API the auth worker of
      <auth-dir> (made by init) guards over the service binding AUTH (its AuthService
      entrypoint): a page with live sign-out, a JSON API, a same-origin sign-out form,
      AUTH_LOGIN_URL in .dev.vars and \`npm run dev\` on http://127.0.0.1:<port>. Adds that origin
      to AUTH_RETURN_ORIGINS in <auth-dir>/.dev.vars (or prints the line): restart the auth
      worker's npm run dev to see it. Copies none of the auth worker's secrets.

  dev [--port 8787] [--idp-port 8788 | --workos-emulator]
      In a project made by init: check .dev.vars, start the local identity provider when
      IDENTITY_API_HOSTNAME is a loopback address (signed webhooks to the worker; with
      SECURITY_EVENTS_WEBHOOK_SECRET in .dev.vars it also receives the worker's security events
      and lists them on its page), then run the project's wrangler dev on http://127.0.0.1:<port>.
      The provider's directory (people, roles, organizations) is kept across restarts in
      .wrangler/state/local-idp/directory.json. A taken port stops it before anything starts.
      --workos-emulator runs WorkOS's own emulator instead, for this run, on a free port:
      workos@0.14.0, installed on first use into ~/.cache/gatehouse (or $GATEHOUSE_CACHE_DIR),
      never a dependency. Same demo people; .dev.vars values naming their ids (say
      ADMIN_CONSOLE_ORGANIZATIONS) get the emulator's ids. It has no sign-in page: /auth/login
      signs in its first person (Ada) unless the authorize URL carries login_hint=<email>.

  dev-idp [--port 8788] [--host 127.0.0.1] [--webhook-url <url> --webhook-secret <secret>]
          [--security-events-secret <secret>] [--directory-file <path> | --in-memory]
      Run the local WorkOS-compatible identity provider alone (--port 0 picks a free port).
      With a security-events secret it receives the auth worker's signed security events at
      /__local/security-events and lists them on its page. Its directory is kept in
      .wrangler/state/local-idp/directory.json (or --directory-file; --in-memory keeps none).
      Environment: LOCAL_IDP_PORT, LOCAL_IDP_HOST, LOCAL_IDP_API_KEY, LOCAL_IDP_CLIENT_ID,
      LOCAL_IDP_PUBLIC_URL, LOCAL_IDP_REDIRECT_ORIGINS, LOCAL_IDP_WEBHOOK_URL,
      LOCAL_IDP_WEBHOOK_SECRET, LOCAL_IDP_SECURITY_EVENTS_SECRET and LOCAL_IDP_DIRECTORY_FILE
      (flags win; prefer the variables for secrets).

Options:
  -h, --help       Show this help
  -v, --version    Show the version of gatehouse-workers`;

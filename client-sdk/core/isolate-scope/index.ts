/**
 * @module
 * `perBindingScope`: state an isolate keeps per binding object and scope (a
 * policy), such as the rate limiters' blocked-key memory and coalescers.
 */

/**
 * Isolate memory keyed by a binding object and a scope (a policy): `create` builds the value the
 * first time a pair is asked for. workerd keeps one `env` (and its binding objects) per isolate,
 * which makes this per isolate; a binding object that is gone takes its values with it.
 */
export function perBindingScope<T>(create: (scope: string) => T): (binding: object, scope: string) => T {
  const bindings = new WeakMap<object, Map<string, T>>();
  return (binding, scope) => {
    let byScope = bindings.get(binding);
    if (!byScope) {
      byScope = new Map();
      bindings.set(binding, byScope);
    }
    let value = byScope.get(scope);
    if (value === undefined) {
      value = create(scope);
      byScope.set(scope, value);
    }
    return value;
  };
}

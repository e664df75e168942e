import { type Constructor, Container, ContainerError, Token } from "gatehouse-workers";
import { describe, expect, it } from "vitest";

class Clock {
  now() {
    return 1;
  }
}
class Service {
  constructor(readonly clock: Clock) {}
}

describe("Container", () => {
  it("resolves by class, building a singleton once", () => {
    const c = new Container();
    let built = 0;
    c.singleton(Clock, () => {
      built++;
      return new Clock();
    });
    const a = c.resolve(Clock);
    const b = c.resolve(Clock);
    expect(a).toBeInstanceOf(Clock);
    expect(a).toBe(b);
    expect(built).toBe(1);
  });

  it("builds nothing at registration time", () => {
    const c = new Container();
    let built = 0;
    c.singleton(Clock, () => {
      built++;
      return new Clock();
    });
    expect(built).toBe(0);
  });

  it("resolves transients anew each time", () => {
    const c = new Container();
    c.transient(Clock, () => new Clock());
    expect(c.resolve(Clock)).not.toBe(c.resolve(Clock));
  });

  it("resolves by typed token and by name, with dependencies", () => {
    const c = new Container();
    const Ttl = new Token<number>("Ttl");
    c.instance(Ttl, 60);
    c.instance("KV_NAME", "sessions");
    c.singleton(Clock, () => new Clock());
    c.singleton(Service, (c) => new Service(c.resolve(Clock)));
    expect(c.resolve(Ttl)).toBe(60);
    expect(c.resolve<string>("KV_NAME")).toBe("sessions");
    expect(c.resolve(Service).clock).toBe(c.resolve(Clock));
  });

  it("throws a ContainerError naming what is missing", () => {
    const c = new Container();
    expect(() => c.resolve(Service)).toThrowError(/Service/);
    expect(() => c.resolve(new Token<number>("SessionTtl"))).toThrowError(/Token\(SessionTtl\)/);
    expect(() => c.resolve("MISSING_BINDING")).toThrowError(/"MISSING_BINDING"/);
    try {
      c.resolve(Service);
    } catch (err) {
      expect(err).toBeInstanceOf(ContainerError);
      expect((err as ContainerError).code).toBe("not_registered");
    }
  });

  it("reports a circular dependency with its chain", () => {
    const c = new Container();
    const A = new Token<unknown>("A");
    const B = new Token<unknown>("B");
    c.singleton(A, (c) => c.resolve(B));
    c.singleton(B, (c) => c.resolve(A));
    expect(() => c.resolve(A)).toThrowError("Circular dependency: Token(A) -> Token(B) -> Token(A)");
  });

  it("retries a singleton whose factory threw", () => {
    const c = new Container();
    let calls = 0;
    c.singleton(Clock, () => {
      calls++;
      if (calls === 1) throw new Error("boom");
      return new Clock();
    });
    expect(() => c.resolve(Clock)).toThrow("boom");
    expect(c.resolve(Clock)).toBeInstanceOf(Clock);
  });

  it("keys by classes of any constructor shape without `any` in the public Constructor type", () => {
    // Type-level: tsc fails here if Constructor's parameters are `any` again.
    type IsAny<T> = 0 extends 1 & T ? true : false;
    const parametersAreAny: IsAny<ConstructorParameters<Constructor<object>>[number]> = false;
    abstract class Base {
      abstract id(): string;
    }
    const keys: Constructor<object>[] = [Clock, Service, Base];
    const c = new Container();
    c.instance(Service, new Service(new Clock()));
    const service: Service = c.resolve(Service);
    expect(service.clock.now()).toBe(1);
    expect(parametersAreAny).toBe(false);
    expect(keys).toHaveLength(3);
  });
});

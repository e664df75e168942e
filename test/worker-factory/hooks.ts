/** What the fixture worker's hooks saw, in order (module state shared with the tests in one isolate). */
export const seen: { hook: string; event: Record<string, unknown> }[] = [];

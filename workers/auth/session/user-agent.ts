/**
 * @module
 * Makes a stored User-Agent string readable for a person ("Firefox 140 on
 * macOS"). Pure and dependency-free, because the browser bundle re-renders
 * the session list with it too. It only describes; it never trusts or
 * decides anything from the header (anyone can send any User-Agent).
 */

const BROWSERS: readonly [name: string, pattern: RegExp][] = [
  ["Edge", /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ["Opera", /\b(?:OPR|Opera)\/(\d+)/],
  ["Samsung Internet", /\bSamsungBrowser\/(\d+)/],
  ["Firefox", /\b(?:Firefox|FxiOS)\/(\d+)/],
  ["Chrome", /\b(?:Chrome|CriOS)\/(\d+)/],
  ["Safari", /\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//],
  ["curl", /^curl\/(\d+)/],
];

const SYSTEMS: readonly [name: string, pattern: RegExp][] = [
  ["iPadOS", /\biPad\b/],
  ["iOS", /\b(?:iPhone|iPod)\b/],
  ["Android", /\bAndroid\b/],
  ["ChromeOS", /\bCrOS\b/],
  ["Windows", /\bWindows\b/],
  ["macOS", /\bMac OS X\b|\bMacintosh\b/],
  ["Linux", /\bLinux\b/],
];

const MAX_RAW = 60;

/**
 * "Firefox 140 on macOS", "Chrome on Android", or the raw string (shortened)
 * when nothing is recognised; "Unknown device" for a missing header.
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? "").trim();
  if (!ua) return "Unknown device";
  const browser = BROWSERS.find(([, pattern]) => pattern.test(ua));
  const system = SYSTEMS.find(([, pattern]) => pattern.test(ua))?.[0];
  if (!browser) {
    if (system) return `Unknown browser on ${system}`;
    return ua.length > MAX_RAW ? `${ua.slice(0, MAX_RAW - 1)}…` : ua;
  }
  const [name, pattern] = browser;
  const version = pattern.exec(ua)?.[1];
  const label = version ? `${name} ${version}` : name;
  return system ? `${label} on ${system}` : label;
}

/**
 * The device without versions ("Firefox on macOS"): a browser update is the same device. With the
 * place, this is what makes a sign-in a new device. A string nothing recognises is kept whole
 * (shortened), so two unknown agents stay apart.
 */
export function deviceClass(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? "").trim();
  if (!ua) return "unknown";
  const browser = BROWSERS.find(([, pattern]) => pattern.test(ua))?.[0];
  const system = SYSTEMS.find(([, pattern]) => pattern.test(ua))?.[0];
  if (!browser && !system) return ua.slice(0, 120);
  return `${browser ?? "Unknown browser"} on ${system ?? "unknown system"}`;
}

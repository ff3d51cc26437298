// The host APIs the JavaScript SDK may use: those browsers and Node 18+
// both have as globals.  tsconfig.json gives tsc these and the ECMAScript
// library only, so a module of the SDK that reaches for the page
// (document, window, navigator, localStorage) does not type-check.

declare function setTimeout(handler: () => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;
declare function structuredClone<T>(value: T): T;
declare const performance: { now(): number };

declare class URL {
  constructor(url: string, base?: string);
  protocol: string;
  host: string;
  pathname: string;
  readonly href: string;
}

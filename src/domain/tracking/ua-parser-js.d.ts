// ua-parser-js 1.x ships no types: the part user-agent.ts uses (the result's names and versions, and the
// extension format of [patterns], [properties] pairs).
declare module 'ua-parser-js' {
  interface Named {
    name?: string;
    version?: string;
  }
  export interface UAResult {
    browser: Named;
    os: Named;
    device: { type?: string; vendor?: string; model?: string };
  }
  export type Extensions = Record<string, Array<RegExp[] | Array<string | [string, string]>>>;
  export class UAParser {
    constructor(ua: string, extensions?: Extensions);
    getResult(): UAResult;
  }
}

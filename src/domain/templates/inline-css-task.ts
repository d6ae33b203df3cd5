// The CSS inlining itself (juice), run on a worker thread (infra/threads, inline-css.ts) or, for a small
// document, on the caller's thread. Its own module so that a worker loads juice and nothing of the renderer.
//
// juice/client is juice's inliner alone: it inlines the <style> blocks of the document it is given and has
// no code that fetches. juice's main entry adds juiceResources/juiceFile, which fetch <link> stylesheets,
// images and scripts through web-resource-inliner; loading the client keeps that code out of the process,
// so a template's <link href> or @import url(...) can never make mailroom reach a host (test:
// test/domain/templates/inline-css-network.test.ts).
//
// It is loaded on the first inlining, not at start: with its CSS parser it is a second of a loaded
// machine's start-up that a service answering no template send never needs. It is CommonJS, so a
// synchronous require keeps inlineStyles synchronous.
import { createRequire } from 'node:module';

type Juice = typeof import('juice/client.js').default;
let juice: Juice | null = null;

export function inlineStyles(html: string): string {
  juice ??= createRequire(import.meta.url)('juice/client.js') as Juice;
  return juice(html, { preserveMediaQueries: true, preserveFontFaces: true, removeStyleTags: true, applyWidthAttributes: false, applyHeightAttributes: false });
}

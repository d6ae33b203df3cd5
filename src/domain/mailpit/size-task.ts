// Composing messages to measure them (size.ts), on a worker thread: composition is linear but costs about a
// millisecond per 3 KB, seconds for a message of megabytes. Its own module so that a worker loads the
// composer and nothing else of the Mailpit area.
import { composeMime, type ComposeInput } from '../delivery/compose.js';

/** The byte length of each message's source as composed without attachment content. */
export function composedLengths(inputs: ComposeInput[]): number[] {
  return inputs.map((i) => composeMime(i, false).length);
}

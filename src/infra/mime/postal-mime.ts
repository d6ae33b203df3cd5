// postal-mime as mailroom uses it: every parse of received or submitted mail goes through this module, so
// that the global Blob is the joined one (joined-blob.ts) before postal-mime first decodes a part. A structure
// test (test/structure/postal-mime-import.test.ts) keeps other src files from importing postal-mime's value.
import PostalMime from 'postal-mime';
import { installJoinedBlob } from './joined-blob.js';

installJoinedBlob();

export default PostalMime;
export type { Address, Attachment, Email, Header, Mailbox } from 'postal-mime';

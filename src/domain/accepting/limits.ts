// The limits of the API (docs/reference/api-conventions.md, "Limits") and the ones mailroom adds where it is
// silent. Lengths of text fields count UTF-16 code units (JavaScript's String.length), as the API requires
// (docs/reference/api-conventions.md, "Limits"); sizes are bytes.
export const MB = 1024 * 1024;

export const MAX_RECIPIENTS = 50;
export const MAX_FROM = 255;
export const MAX_SUBJECT = 2000;
export const MAX_TAG = 1000;
/** ReplyTo may list several addresses; not limited by the API. */
export const MAX_REPLY_TO = 1000;
/** HtmlBody and TextBody, each, in UTF-8 bytes. */
export const MAX_BODY_BYTES = 5 * MB;
/** A whole message after base64 (see messageSize), single send and each batch item. */
export const MAX_MESSAGE_BYTES = 10 * MB;
export const MAX_BATCH_MESSAGES = 500;
/** The raw /email/batch request body. */
export const MAX_BATCH_BYTES = 50 * MB;
/**
 * The raw /email request body. The 10 MB rule is applied to the message itself (messageSize); JSON escaping
 * can make the request larger than the message (a `"` becomes `\"`), so the transport limit leaves room.
 */
export const MAX_SINGLE_REQUEST_BYTES = 3 * MAX_MESSAGE_BYTES;

/** Custom headers: count and sizes (RFC 5322 2.1.1 limits a line to 998 octets; longer values are folded). */
export const MAX_HEADERS = 100;
export const MAX_HEADER_NAME = 200;
export const MAX_HEADER_VALUE = 8000;

/** Metadata (the hosted service's published limits): 10 fields, names of 20 and values of 80 characters. */
export const MAX_METADATA_FIELDS = 10;
export const MAX_METADATA_KEY = 20;
export const MAX_METADATA_VALUE = 80;

export const MAX_ATTACHMENTS = 100;
export const MAX_ATTACHMENT_NAME = 255;
export const MAX_CONTENT_TYPE = 255;
export const MAX_CONTENT_ID = 255;

/** Specification, "Limits": forbidden attachment extensions. */
export const FORBIDDEN_EXTENSIONS = new Set(
  'vbs exe bin bat chm com cpl crt hlp hta inf ins isp jse lnk mdb pcd pif reg scr sct shs vbe vba wsf wsh wsl msc msi msp mst'.split(' '),
);

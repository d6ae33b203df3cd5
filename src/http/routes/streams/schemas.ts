import { Type } from 'typebox';

/** Stream IDs are at most 30 characters; a longer path segment can only miss (1226). */
export const StreamParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const ListStreamsQuery = Type.Object({
  messagestreamtype: Type.Optional(Type.String({ maxLength: 50 })),
  includearchivedstreams: Type.Optional(Type.Boolean()),
});

// The fields are checked by the domain module, which answers each rule with its published code (1221-1237);
// the schema only insists on a JSON object and names the keys (read in any case, http/body-keys.ts).
export const StreamBody = Type.Optional(
  Type.Object(
    {
      ID: Type.Optional(Type.Unknown()),
      ServerID: Type.Optional(Type.Unknown()),
      Name: Type.Optional(Type.Unknown()),
      Description: Type.Optional(Type.Unknown()),
      MessageStreamType: Type.Optional(Type.Unknown()),
      // Named so that its key is read in any case too (http/body-keys.ts); any value passes to the domain.
      SubscriptionManagementConfiguration: Type.Optional(
        Type.Union([Type.Object({ UnsubscribeHandlingType: Type.Optional(Type.Unknown()) }, { additionalProperties: true }), Type.Unknown()]),
      ),
      IpPool: Type.Optional(
        Type.Unknown({ description: 'mailroom extension: name of an IP pool of MAILROOM_IP_POOLS the stream\'s mail leaves from (overrides the server\'s); "" for none. Unknown name: 422, ErrorCode 403.' }),
      ),
    },
    { additionalProperties: true },
  ),
);

const Timestamp = Type.Union([Type.String(), Type.Null()]);

export const StreamRecord = Type.Object({
  ID: Type.String(),
  ServerID: Type.Integer(),
  Name: Type.String(),
  Description: Type.String(),
  MessageStreamType: Type.String(),
  CreatedAt: Timestamp,
  UpdatedAt: Timestamp,
  ArchivedAt: Timestamp,
  ExpectedPurgeDate: Timestamp,
  SubscriptionManagementConfiguration: Type.Object({ UnsubscribeHandlingType: Type.String() }),
  IpPool: Type.Union([Type.String(), Type.Null()], { description: "mailroom extension: the stream's IP pool; null: the server's" }),
});

export const ArchiveRecord = Type.Object({ ID: Type.String(), ServerID: Type.Integer(), ExpectedPurgeDate: Timestamp });

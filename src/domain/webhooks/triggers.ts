// The Triggers object of a webhook (docs/reference/webhooks.md, "Events and triggers") and which trigger a
// recorded message event belongs to.
import type { MessageEventType } from '../event-types.js';

export interface Triggers {
  Open: { Enabled: boolean; PostFirstOpenOnly: boolean };
  Click: { Enabled: boolean };
  Delivery: { Enabled: boolean };
  Bounce: { Enabled: boolean; IncludeContent: boolean };
  SpamComplaint: { Enabled: boolean; IncludeContent: boolean };
  SubscriptionChange: { Enabled: boolean };
}

export type TriggerKey = keyof Triggers;

/** What a client may send: any trigger, any of its options; absent means "leave as is". */
export type TriggersInput = { [K in TriggerKey]?: { [O in keyof Triggers[K]]?: boolean | null } | null };

export function defaultTriggers(): Triggers {
  return {
    Open: { Enabled: false, PostFirstOpenOnly: false },
    Click: { Enabled: false },
    Delivery: { Enabled: false },
    Bounce: { Enabled: false, IncludeContent: false },
    SpamComplaint: { Enabled: false, IncludeContent: false },
    SubscriptionChange: { Enabled: false },
  };
}

const KEYS: TriggerKey[] = ['Open', 'Click', 'Delivery', 'Bounce', 'SpamComplaint', 'SubscriptionChange'];

/**
 * Applies the triggers passed onto `base`: only the triggers (and options) given change
 * (docs/reference/webhooks.md, "Endpoints": PUT changes only the triggers passed).
 */
export function mergeTriggers(base: Triggers, input: TriggersInput | null | undefined): Triggers {
  const out = structuredClone(base);
  if (!input) return out;
  for (const k of KEYS) {
    const given = input[k];
    if (!given) continue;
    const target = out[k] as Record<string, boolean>;
    for (const [opt, v] of Object.entries(given)) {
      if (opt in target && typeof v === 'boolean') target[opt] = v;
    }
  }
  return out;
}

/** Stored text -> a complete Triggers object (every key present even if the stored JSON lacks one). */
export function parseTriggers(text: string): Triggers {
  let stored: TriggersInput = {};
  try {
    stored = JSON.parse(text) as TriggersInput;
  } catch {
    /* a broken value is treated as all disabled */
  }
  return mergeTriggers(defaultTriggers(), stored);
}

/** The trigger of an event type; Processed and Transient notify nobody. */
export const TRIGGER_OF: Partial<Record<MessageEventType, TriggerKey>> = {
  Delivered: 'Delivery',
  Bounced: 'Bounce',
  SpamComplaint: 'SpamComplaint',
  Opened: 'Open',
  LinkClicked: 'Click',
  SubscriptionChanged: 'SubscriptionChange',
};

// What the last action on a screen did (a row's revoke, remove, verify, replay): read out
// politely when it worked, as an alert when it failed. A new outcome replaces the last.
import { useCallback, useState } from 'react';
import { FormAlert, StatusNotice } from './feedback.tsx';

export interface Outcome {
  ok: boolean;
  text: string;
}

export function useOutcome() {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const done = useCallback((text: string) => setOutcome({ ok: true, text }), []);
  const failed = useCallback((text: string) => setOutcome({ ok: false, text }), []);
  return { outcome, done, failed };
}

export function OutcomeNotice({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null;
  return outcome.ok ? <StatusNotice>{outcome.text}</StatusNotice> : <FormAlert message={outcome.text} />;
}

// A custom domain's app deep links: the apple-app-site-association and assetlinks.json documents
// its host serves at /.well-known/, so that links with an iOS or Android routing rule open the
// installed app. Edited as JSON text; OWNER and ADMIN save them, everyone else reads them.
import { useRef, useState, type FormEvent } from 'react';
import { useDomainAppLinks, useSaveAppLinks } from '../../api/settings.ts';
import type { AppLinks, Domain } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { FormAlert, Loading, LoadError } from '../../components/feedback.tsx';
import { TextAreaField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { FormSection } from '../../components/form-section.tsx';
import { OutcomeNotice, useOutcome } from '../../components/outcome-notice.tsx';
import { boundText } from '../../components/text-inputs.ts';

type Field = 'apple' | 'android';
// The API names the place in a document (`apple.applinks.details.0.appIDs`): its first part is the field.
const FIELDS: Record<string, Field> = { apple: 'apple', android: 'android' };

const asText = (doc: unknown) => (doc === null || doc === undefined ? '' : JSON.stringify(doc, null, 2));

export function DomainAppLinks(props: { workspaceId: string; domain: Domain; editable: boolean; onClose: () => void }) {
  const read = useDomainAppLinks(props.workspaceId, props.domain.id);
  const host = props.domain.host;
  return (
    <section className="panel" aria-labelledby="app-links-heading">
      <h2 id="app-links-heading">App links for {host}</h2>
      <p className="muted">
        Phones read these at <code>https://{host}/.well-known/…</code> so that links with an iOS or Android rule open
        your app. The shared short domain&apos;s are set by the operator: deep links need a custom domain.
      </p>
      {read.isPending ? (
        <Loading label="Loading app links…" />
      ) : read.isError ? (
        <LoadError error={read.error} retry={() => void read.refetch()} what="the app links" />
      ) : (
        <AppLinksForm key={props.domain.id} {...props} stored={read.data} />
      )}
    </section>
  );
}

function AppLinksForm({
  workspaceId,
  domain,
  editable,
  onClose,
  stored,
}: {
  workspaceId: string;
  domain: Domain;
  editable: boolean;
  onClose: () => void;
  stored: AppLinks;
}) {
  const [apple, setApple] = useState(() => asText(stored.apple));
  const [android, setAndroid] = useState(() => asText(stored.android));
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const notice = useOutcome();
  const save = useSaveAppLinks(workspaceId, domain.id, {
    onSuccess: (answer) => {
      errors.clear();
      const { served, apple: a, android: b } = answer.data;
      const what = a === null && b === null ? 'has no app links' : 'serves the app links';
      notice.done(
        served ? `Saved: ${domain.host} ${what} from now on.` : `Saved: served once ${domain.host} is verified.`,
      );
    },
    onError: (err) => errors.show(err),
  });

  const parse = (text: string): { doc: unknown; problem?: string } => {
    if (!text.trim()) return { doc: null };
    try {
      return { doc: JSON.parse(text) };
    } catch (err) {
      return { doc: null, problem: `This is not JSON: ${(err as Error).message}` };
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const a = parse(apple);
    const b = parse(android);
    if (!errors.check({ apple: a.problem, android: b.problem })) return;
    save.mutate({ apple: a.doc as AppLinks['apple'], android: b.doc as AppLinks['android'] });
  };

  return (
    <form ref={formRef} onSubmit={submit} noValidate>
      <OutcomeNotice outcome={notice.outcome} />
      <FormAlert message={errors.form} />
      <FormSection legend="Documents" editable={editable}>
        <TextAreaField
          label="Apple: apple-app-site-association"
          {...boundText(apple, setApple)}
          error={errors.fields.apple}
          hint="JSON with applinks, webcredentials or appclips. Leave empty for none."
          rows={10}
          spellCheck={false}
          className="field-code"
        />
        <TextAreaField
          label="Android: assetlinks.json"
          {...boundText(android, setAndroid)}
          error={errors.fields.android}
          hint="A JSON array of statements, each with relation and target. Leave empty for none."
          rows={10}
          spellCheck={false}
          className="field-code"
        />
      </FormSection>
      <div className="form-actions">
        {editable ? <SubmitButton pending={save.isPending}>Save app links</SubmitButton> : null}
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}

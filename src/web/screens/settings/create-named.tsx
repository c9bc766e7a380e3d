// The panel that makes a named workspace object (a tag, a campaign): a name, any other inputs of
// the object in the same row, and a notice naming what the last submit made.
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { StatusNotice } from '../../components/feedback.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { RowFormPanel } from '../../components/row-form-panel.tsx';
import { boundText } from '../../components/text-inputs.ts';

type Field = 'name' | 'color';
const FIELDS: Record<string, Field> = { name: 'name', color: 'color' };

/** The write's own callbacks, given with each submit: they belong to this panel's state. */
interface Sent {
  onSuccess: (answer: { data: { name: string } }) => void;
  onError: (err: Error) => void;
}

export function CreateNamedPanel<Vars>({
  noun,
  maxLength,
  create,
  vars,
  more,
}: {
  /** What is made, in lower case ("tag"): the heading, the button and the messages name it. */
  noun: string;
  maxLength: number;
  create: { isPending: boolean; mutate: (vars: Vars, sent: Sent) => void };
  /** What the write sends for the trimmed name. */
  vars: (name: string) => Vars;
  /** The inputs after the name, with the errors the API put on them. */
  more?: (errors: Partial<Record<Field, string>>) => ReactNode;
}) {
  const [name, setName] = useState('');
  const [made, setMade] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const Noun = noun[0]!.toUpperCase() + noun.slice(1);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMade(null);
    if (!errors.check({ name: name.trim() ? undefined : `Name the ${noun}.` })) return;
    create.mutate(vars(name.trim()), {
      onSuccess: (answer) => {
        setMade(answer.data.name);
        setName('');
        errors.clear();
      },
      onError: (err) => errors.show(err),
    });
  };

  return (
    <RowFormPanel
      headingId={`create-${noun}-heading`}
      heading={`Create ${noun}`}
      intro={
        made ? (
          <StatusNotice>
            {Noun} {made} created.
          </StatusNotice>
        ) : null
      }
      formRef={formRef}
      onSubmit={submit}
      formError={errors.form}
      pending={create.isPending}
      submit={`Create ${noun}`}
    >
      <TextField
        label="Name"
        {...boundText(name, setName)}
        error={errors.fields.name}
        maxLength={maxLength}
        className="grow"
      />
      {more?.(errors.fields)}
    </RowFormPanel>
  );
}

// A form's text inputs bound to its values: `input(key)` is the value, change handler and error
// of one input, to spread on a TextField, TextAreaField or SelectField (`{...input('name')}`).
/** What `input(key)` gives. */
export interface TextInput {
  value: string;
  onChange: (e: { target: { value: string } }) => void;
  error: string | undefined;
}

export function textInputs<K extends string>(
  values: { readonly [P in K]: string },
  change: (key: K, value: string) => void,
  errors: { readonly [P in K]?: string | undefined },
) {
  return (key: K): TextInput => ({
    ...boundText(values[key], (value) => change(key, value)),
    error: errors[key],
  });
}

/** One input bound to its own state: `{...boundText(email, setEmail)}` gives the value and change handler. */
export function boundText(value: string, set: (value: string) => void) {
  return { value, onChange: (e: { target: { value: string } }) => set(e.target.value) };
}

/**
 * A search inside a form (a picker's, a list's filter): `{...searchInForm(q, setQ)}`. Enter
 * searches as typing does; it must not send the form around it.
 */
export function searchInForm(value: string, set: (value: string) => void) {
  return {
    ...boundText(value, set),
    type: 'search' as const,
    onKeyDown: (e: { key: string; preventDefault(): void }) => {
      if (e.key === 'Enter') e.preventDefault();
    },
  };
}

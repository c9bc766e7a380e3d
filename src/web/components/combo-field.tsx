// Choosing one of a list the workspace may grow long (its campaigns, its tags) by typing part of
// its name: a labelled combobox over a list box of the matches. Downshift keeps the WAI-ARIA
// combobox pattern (roles, active option, keys) right; this frame adds the field's label, hint
// and error as every other field has them, and the filtering.
import { useCombobox } from 'downshift';
import { useId, useMemo, useState, type ReactNode } from 'react';

export interface ComboChoice {
  value: string;
  label: string;
  /** Said after the label in the list (a tag's link count). */
  detail?: string;
}

/** The most matches listed at once; typing narrows a longer list. */
const LISTED = 50;

export function ComboField({
  label,
  hint,
  error,
  className,
  choices,
  value,
  onChange,
  everything,
  placeholder,
  noun,
  disabled = false,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  className?: string;
  choices: readonly ComboChoice[];
  /** The chosen value; '' for none (or for `everything`). */
  value: string;
  onChange: (value: string) => void;
  /** When set, '' is a choice too, listed first under this label ("Every campaign"). */
  everything?: string;
  placeholder?: string;
  /** What a choice is, for "No campaign matches …". */
  noun: string;
  disabled?: boolean;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const all = useMemo<ComboChoice[]>(
    () => [
      ...(everything !== undefined ? [{ value: '', label: everything }] : []),
      // A value none of the choices holds (an id from the address, a deleted campaign) stays shown.
      ...(value && !choices.some((c) => c.value === value) ? [{ value, label: value }] : []),
      ...choices,
    ],
    [choices, everything, value],
  );
  // What was typed since the list last opened; '' lists everything.
  const [typed, setTyped] = useState('');
  const needle = typed.trim().toLowerCase();
  const matches = (needle ? all.filter((c) => c.label.toLowerCase().includes(needle)) : all).slice(0, LISTED);
  const selectedItem = all.find((c) => c.value === value) ?? null;

  const combo = useCombobox<ComboChoice>({
    id,
    items: matches,
    selectedItem,
    itemToString: (c) => c?.label ?? '',
    itemToKey: (c) => c?.value,
    onSelectedItemChange: ({ selectedItem: picked }) => onChange(picked?.value ?? ''),
    onInputValueChange: ({ inputValue, type }) =>
      setTyped(type === useCombobox.stateChangeTypes.InputChange ? (inputValue ?? '') : ''),
    stateReducer: (_state, { type, changes }) => {
      // Leaving the field without choosing puts back the chosen name, so the field never shows
      // text that is not what it holds.
      if (type === useCombobox.stateChangeTypes.InputBlur && changes.selectedItem === selectedItem)
        return { ...changes, inputValue: selectedItem?.label ?? '' };
      return changes;
    },
  });
  const open = combo.isOpen && matches.length > 0;

  return (
    <div className={['field', 'combo-field', className].filter(Boolean).join(' ')}>
      <label {...combo.getLabelProps()}>{label}</label>
      <div className="combo-control">
        <input
          {...combo.getInputProps({
            disabled,
            placeholder,
            spellCheck: false,
            'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined,
            'aria-invalid': error ? true : undefined,
          })}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          className="combo-toggle"
          {...combo.getToggleButtonProps({ disabled, 'aria-label': `Show every ${noun}` })}
        >
          <span aria-hidden="true">▾</span>
        </button>
        <ul {...combo.getMenuProps()} className="combo-menu" hidden={!open}>
          {open
            ? matches.map((c, index) => (
                <li
                  key={c.value}
                  className={[
                    'combo-option',
                    combo.highlightedIndex === index ? 'is-active' : '',
                    c.value === value ? 'is-chosen' : '',
                  ]
                    .filter(Boolean)
                    .join(' ')}
                  {...combo.getItemProps({ item: c, index })}
                >
                  <span>{c.label}</span>
                  {c.detail ? <span className="muted"> {c.detail}</span> : null}
                </li>
              ))
            : null}
        </ul>
      </div>
      <p className="field-hint combo-status" role="status">
        {combo.isOpen && matches.length === 0 ? `No ${noun} matches “${typed.trim()}”.` : null}
      </p>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

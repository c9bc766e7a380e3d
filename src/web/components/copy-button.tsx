import { useEffect, useState } from 'react';
import { announce } from '../lib/announce.ts';
import { copyText } from '../lib/clipboard.ts';

/**
 * A button that copies `text`. `label` is its accessible name ("Copy short URL for launch");
 * the visible word stays short.
 */
export function CopyButton({
  text,
  label,
  visible = 'Copy',
  className,
}: {
  text: string;
  label: string;
  visible?: string;
  className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return undefined;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      className={['button button-small', className].filter(Boolean).join(' ')}
      aria-label={label}
      onClick={async () => {
        const ok = await copyText(text);
        setState(ok ? 'copied' : 'failed');
        announce(ok ? 'Copied' : 'Could not copy: select the text and copy it yourself');
      }}
    >
      <span aria-hidden="true">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : visible}</span>
    </button>
  );
}

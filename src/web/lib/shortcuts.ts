// Single-key shortcuts (`c`, `/`, `?`). A key is taken only when nothing else wants it: not while
// typing in a field, with Ctrl, Alt or Meta held (the browser's and the system's), or with a
// dialog open (its own keys, Escape among them).
import { useEffect, useRef } from 'react';

export function useShortcuts(keys: Record<string, (() => void) | undefined>): void {
  const current = useRef(keys);
  current.current = keys;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if (document.querySelector('dialog[open]')) return;
      const run = current.current[e.key];
      if (!run) return;
      e.preventDefault();
      run();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

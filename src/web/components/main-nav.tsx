// The main navigation of a workspace. Wide screens show its sections in the top bar; narrow ones
// (narrow.css, up to 720 px) have no room for all seven, so a "Menu" button discloses them in a
// panel. The panel is a disclosure, not a menu widget: its sections stay ordinary links in a
// list, reached with Tab after the button.
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'wouter';

/** The sections of a workspace, in order: each path and its link's name. */
const SECTIONS = [
  ['/links', 'Links'],
  ['/conversions', 'Conversions'],
  ['/goals', 'Goals'],
  ['/pages', 'Pages'],
  ['/reports', 'Reports'],
  ['/import', 'Import and export'],
  ['/settings', 'Settings'],
] as const;

/** `ws` is the workspace's path (/w/<id>); `location` the address now, to mark the current section. */
export function MainNav({ ws, location }: { ws: string; location: string }) {
  const [open, setOpen] = useState(false);
  const navRef = useRef<HTMLElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const listId = useId();

  // While open, Escape closes the panel and gives focus back to the button (the person's place
  // before it opened), and a press anywhere outside the navigation closes it where it is.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    const onPress = (e: PointerEvent) => {
      if (!navRef.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPress);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPress);
    };
  }, [open]);

  const current = (path: string) =>
    location === `${ws}${path}` || location.startsWith(`${ws}${path}/`) ? 'page' : undefined;

  return (
    <nav
      ref={navRef}
      className="mainnav"
      aria-label="Main"
      // Tabbing on past the last section closes the panel, so it never covers the screen behind
      // the focus. A blur with nowhere to go (a press on the panel itself) keeps it open.
      onBlur={(e) => {
        const next = e.relatedTarget as Node | null;
        if (next && !e.currentTarget.contains(next)) setOpen(false);
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        className="button button-small menu-button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="menu-icon" aria-hidden="true" />
        Menu
      </button>
      <ul id={listId} className={open ? 'is-open' : undefined}>
        {SECTIONS.map(([path, name]) => (
          <li key={path}>
            <Link href={`${ws}${path}`} aria-current={current(path)} onClick={() => setOpen(false)}>
              {name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

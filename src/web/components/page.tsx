// The parts every screen has: its one h1 (focused after a navigation, so a screen reader starts
// at the new screen), an optional eyebrow and actions.
import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { useDocumentTitle } from '../lib/hooks.ts';

let firstScreen = true;

export function PageHeader({
  title,
  eyebrow,
  actions,
  children,
}: {
  title: string;
  eyebrow?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  useDocumentTitle(title);
  const ref = useRef<HTMLHeadingElement>(null);
  // A new address moves focus here; a filter or a title filled in later does not.
  const [location] = useLocation();
  useEffect(() => {
    // The first screen of a visit keeps the browser's own starting point.
    if (firstScreen) {
      firstScreen = false;
      return;
    }
    ref.current?.focus({ preventScroll: false });
  }, [location]);
  return (
    <div className="page-header">
      <div className="page-header-text">
        {eyebrow ? <p className="eyebrow">{eyebrow}</p> : null}
        <h1 ref={ref} tabIndex={-1}>
          {title}
        </h1>
        {children}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </div>
  );
}

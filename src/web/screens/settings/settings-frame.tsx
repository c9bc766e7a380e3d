// Settings screens share a heading eyebrow and a navigation between them.
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { PageHeader } from '../../components/page.tsx';
import { wsPath } from '../links/paths.ts';

const SECTIONS = [
  { path: '/settings', label: 'General' },
  { path: '/settings/keys', label: 'API keys' },
  { path: '/settings/members', label: 'Members' },
  { path: '/settings/domains', label: 'Domains' },
  { path: '/settings/tags', label: 'Tags' },
  { path: '/settings/campaigns', label: 'Campaigns' },
  { path: '/settings/webhooks', label: 'Webhooks' },
  { path: '/settings/sso', label: 'Single sign-on' },
];

export function SettingsFrame({
  workspaceId,
  title,
  children,
  actions,
}: {
  workspaceId: string;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const [location] = useLocation();
  return (
    <>
      <PageHeader title={title} eyebrow="Settings" actions={actions} />
      <div className="settings">
        <nav className="subnav" aria-label="Settings">
          <ul>
            {SECTIONS.map((s) => {
              const href = wsPath(workspaceId, s.path);
              return (
                <li key={s.path}>
                  <Link href={href} aria-current={location === href ? 'page' : undefined}>
                    {s.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <div className="settings-body">{children}</div>
      </div>
    </>
  );
}

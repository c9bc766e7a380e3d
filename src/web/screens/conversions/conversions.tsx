// Conversions: the workspace's conversion summary (GET /api/v1/conversions, through the dashboard
// API) over a window of up to 400 days with every filter of the API, kept in the address; the
// figures with what an undefined rate and a truncated window mean; conversions per day; the
// breakdowns; a CSV of it all. It changes nothing, so every role sees all of it.
import type { ReactNode } from 'react';
import { useParams, useSearchParams } from 'wouter';
import { asApiError } from '../../api/errors.ts';
import { useConversions } from '../../api/goals.ts';
import { useWorkspace } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import { useCampaigns } from '../../api/settings.ts';
import type { ReportParams } from '../../api/types.ts';
import { LoadError, Loading } from '../../components/feedback.tsx';
import { PageHeader } from '../../components/page.tsx';
import { todayUtc } from '../../lib/dates.ts';
import { planName } from '../../lib/format.ts';
import { filtersText, namedBy, windowPhrase } from '../reports/report-text.ts';
import { ShareButton } from '../reports/share-button.tsx';
import { ConversionFilters, type FieldErrors } from './conversion-filters.tsx';
import { ConversionsReport } from './conversions-report.tsx';
import { paramsOf, queryOf, viewOf, type ConversionView, type FilterName } from './view.ts';

const FIELDS = new Set(['from', 'to', 'eventType', 'customName', 'linkId', 'campaignId', 'qrCodeId']);

export default function Conversions() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const workspace = useWorkspace(ws);
  const [params, setParams] = useSearchParams();
  const today = todayUtc();
  const view = viewOf(params, today);
  const query = queryOf(view);
  const show = (next: ConversionView) => setParams(paramsOf(next));
  const role = useMembership(ws)!.role;

  const plan = workspace.data?.plan;
  const planIncludes = plan === 'growth' || plan === 'business';
  // The plan has conversions but the workspace's features do not: the deployment has them off.
  const included = workspace.data?.features.conversions ?? false;
  const campaigns = useCampaigns(ws, included);
  const answer = useConversions(ws, query, included);

  const problem = answer.isError ? asApiError(answer.error) : null;
  const fieldErrors: FieldErrors =
    problem?.status === 400 && problem.field && FIELDS.has(problem.field) ? { [problem.field]: problem.message } : {};
  const only = (filter: FilterName, id: string) => show({ ...view, [filter]: id });

  let body: ReactNode;
  if (workspace.isPending) body = <Loading label="Loading conversions…" />;
  else if (workspace.isError)
    body = <LoadError error={workspace.error} retry={() => workspace.refetch()} what="the workspace" />;
  else if (!planIncludes) {
    body = (
      <p className="notice notice-info">
        <strong>Conversions need the Growth plan.</strong> The {planName(workspace.data.plan)} plan of this workspace
        does not include conversion tracking.
      </p>
    );
  } else if (!included || problem?.status === 503) {
    body = <Unavailable />;
  } else {
    body = (
      <>
        <ConversionFilters
          workspaceId={ws}
          view={view}
          today={today}
          campaigns={campaigns.data}
          names={answer.data?.names}
          errors={fieldErrors}
          apply={show}
        />
        {answer.isPending ? (
          <Loading label="Loading conversions…" />
        ) : problem && Object.keys(fieldErrors).length ? (
          <div className="state state-error" role="alert">
            <h2>The service refused these filters</h2>
            <p>{problem.message.replace(/\.$/, '')}. Change the field marked above.</p>
          </div>
        ) : problem ? (
          <LoadError error={problem} retry={() => answer.refetch()} what="the conversions" />
        ) : answer.data ? (
          <ConversionsReport
            answer={answer.data}
            busy={answer.isFetching}
            byScans={view.qrCodeId !== ''}
            filters={view}
            only={only}
          />
        ) : null}
      </>
    );
  }

  // "Share" saves this view (its window and filters) as a report.
  const shareable = can.editLinks(role) && planIncludes && included && !problem;
  const shared = sharedParams(view);
  const shareWhat = filtersText(shared, namedBy(answer.data?.names));
  return (
    <>
      <PageHeader
        title="Conversions"
        actions={
          shareable ? (
            <ShareButton
              workspaceId={ws}
              report={{ kind: 'CONVERSIONS', params: shared }}
              defaultTitle={`Conversions, ${windowPhrase(shared.window)}${shareWhat ? ` (${shareWhat})` : ''}`}
              what={shareWhat || 'every conversion'}
            />
          ) : null
        }
      >
        <p className="muted">
          What your servers recorded through the API (<code>POST /api/v1/conversions</code>), counted over a window: by
          event type, link, campaign and QR code, with their value and conversion rate. Days are UTC days.
        </p>
      </PageHeader>
      {body}
    </>
  );
}

/** The view as a report's params: a preset is the last N days (moving with the date), custom days stay fixed. */
function sharedParams(view: ConversionView): ReportParams {
  const window = view.window === 'custom' ? { from: view.from, to: view.to } : { lastDays: Number(view.window) };
  const filters = Object.fromEntries(
    Object.entries(paramsOf(view)).filter(([k]) => k !== 'window' && k !== 'from' && k !== 'to'),
  );
  return { window, ...filters } as ReportParams;
}

function Unavailable() {
  return (
    <div className="notice notice-info" role="status">
      <strong>Conversion tracking is not available on this deployment.</strong> Whoever runs this Shortlink service has
      it switched off (<code>FEATURE_CONVERSIONS=off</code>), so no conversions are recorded or counted here.
    </div>
  );
}

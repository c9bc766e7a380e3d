// The dashboard contract's schemas under the names the screens use.
import type { components } from '../../../generated/dashboard.ts';

type Schemas = components['schemas'];

export type Session = Schemas['Session'];
export type WorkspaceSummary = Schemas['WorkspaceSummary'];
export type Workspace = Schemas['Workspace'];
export type Role = Schemas['Role'];
export type Plan = Schemas['Plan'];
export type DashboardLink = Schemas['DashboardLink'];
export type DashboardLinkCreate = Schemas['DashboardLinkCreate'];
export type DashboardLinkList = Schemas['DashboardLinkList'];
export type LinkUpdate = Schemas['LinkUpdate'];
export type BulkLinks = Schemas['BulkLinks'];
export type BulkResult = Schemas['BulkResult'];
export type ImportReport = Schemas['ImportReport'];
export type LinkAnalytics = Schemas['LinkAnalytics'];
export type CountEntry = Schemas['CountEntry'];
export type QrCode = Schemas['QrCode']['data'];
export type ApiKey = Schemas['ApiKey'];
export type Scope = Schemas['Scope'];
export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];
export type Domain = Schemas['Domain'];
export type AppLinks = Schemas['AppLinks'];
export type AppLinksUpdate = Schemas['AppLinksUpdate'];
export type WorkspaceTag = Schemas['WorkspaceTag'];
export type TagListEntry = Schemas['TagListEntry'];
export type Campaign = Schemas['Campaign'];
export type Goal = Schemas['Goal'];
export type GoalCreate = Schemas['GoalCreate'];
export type GoalReport = Schemas['GoalReport'];
export type EventType = Schemas['EventType'];
export type DashboardConversions = Schemas['DashboardConversions'];
export type ConversionSummary = Schemas['ConversionSummary'];
export type ConversionDay = Schemas['ConversionDay'];
export type ConversionNames = Schemas['ConversionNames'];
export type Rate = Schemas['Rate'];
export type ValueEntry = Schemas['ValueEntry'];
export type BioPage = Schemas['BioPage'];
export type BioPageCreate = Schemas['BioPageCreate'];
export type BioPageUpdate = Schemas['BioPageUpdate'];
export type Routing = Schemas['Routing'];
export type RoutingUpdate = Schemas['RoutingUpdate'];
export type RoutingCondition = Schemas['RoutingCondition'];
export type RoutingTrial = Schemas['RoutingTrial'];
export type RoutingTrialResult = Schemas['RoutingTrialResult']['data'];
export type RoutingReport = Schemas['RoutingReport']['data'];
export type BioPagePreviewRequest = Schemas['BioPagePreviewRequest'];
export type BioPageAnalytics = Schemas['BioPageAnalytics'];
export type PageBlock = Schemas['PageBlock'];
export type PageBlockInput = Schemas['PageBlockInput'];
export type PageTheme = Schemas['PageTheme'];
export type ViewEntry = Schemas['ViewEntry'];
export type ErrorBody = Schemas['Error'];
export type Report = Schemas['Report'];
export type ReportCreate = Schemas['ReportCreate'];
export type ReportKind = Schemas['ReportKind'];
export type ReportParams = Schemas['ReportParams'];
/** A report's kind with the params of that kind, as a new report takes them (the contract's oneOf). */
export type ReportOfKind =
  | { kind: 'CONVERSIONS'; params: Schemas['ConversionsReportParams'] }
  | { kind: 'GOAL'; params: Schemas['GoalReportParams'] }
  | { kind: 'LINK'; params: Schemas['LinkReportParams'] }
  | { kind: 'PAGE'; params: Schemas['PageReportParams'] };
export type ReportVisibility = Schemas['ReportVisibility'];
export type ReportWindow = Schemas['ReportWindow'];
export type SharedReport = Schemas['SharedReport'];

/** Every scope an API key can hold, in the contract's order. */
export const SCOPES: readonly Scope[] = [
  'links:read',
  'links:write',
  'conversions:read',
  'conversions:write',
  'analytics:read',
  'pages:read',
  'pages:write',
  'webhooks:read',
  'webhooks:write',
  'team:read',
];

export const ROLES: readonly Role[] = ['OWNER', 'ADMIN', 'MEMBER', 'ANALYST'];
export type SignInAnswer = Schemas['SignInAnswer'];
export type SecondFactorChallenge = Schemas['SecondFactorChallenge'];
export type SecondFactorMethod = Schemas['SecondFactorMethod'];
/** The methods answered with a typed code (a passkey answers through the browser). */
export type CodeMethod = Exclude<SecondFactorMethod, 'passkey'>;
export type SecondFactorStatus = Schemas['SecondFactorStatus'];
export type TotpEnrolment = Schemas['TotpEnrolment']['data'];
export type Passkey = Schemas['Passkey'];
export type SsoProvider = Schemas['SsoProvider'];
export type SsoProviderUpdate = Schemas['SsoProviderUpdate'];
export type SsoRole = Schemas['SsoRole'];

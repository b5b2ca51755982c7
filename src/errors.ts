// One error model for the whole service. Every failure a client can see is an
// ApiError carrying PostHog's body shape {type, code, detail, attr}; the HTTP
// layer maps it to a response in exactly one place (http/reply.ts).

export type ErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'invalid_request'
  | 'throttled_error'
  | 'quota_limited'
  | 'server_error';

export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string> | undefined;
  // Answered with the status alone, where PostHog sends no body.
  readonly bodiless: boolean;

  constructor(
    status: number, type: ErrorType, code: string, detail: string, attr: string | null = null, headers?: Record<string, string>,
    bodiless = false,
  ) {
    super(detail);
    this.status = status;
    this.body = { type, code, detail, attr };
    this.headers = headers;
    this.bodiless = bodiless;
  }
}

// The catalogue: each constructor names one situation, its status and PostHog's wording.
export const errors = {
  invalidPayload: (detail: string, attr: string | null = null) =>
    new ApiError(400, 'validation_error', 'invalid_payload', detail, attr),
  validation: (detail: string, attr: string | null = null, code = 'invalid_input') =>
    new ApiError(400, 'validation_error', code, detail, attr),
  required: (attr: string) =>
    new ApiError(400, 'validation_error', 'required', 'This field is required.', attr),
  missingProjectKey: () =>
    new ApiError(401, 'authentication_error', 'invalid_api_key',
      'API key not provided. You can find your project API key in your project settings.', null),
  invalidProjectKey: () =>
    new ApiError(401, 'authentication_error', 'invalid_api_key',
      'Project API key invalid. You can find your project API key in your project settings.', null),
  personalKeyAsToken: () =>
    new ApiError(401, 'authentication_error', 'invalid_api_key',
      'Personal API keys cannot be used to send events. Use your project API key.', null),
  notAuthenticated: () =>
    new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.'),
  invalidPersonalKey: () =>
    new ApiError(401, 'authentication_error', 'authentication_failed',
      'Personal API key found in request Authorization header is invalid.'),
  missingScope: (scope: string) =>
    new ApiError(403, 'authentication_error', 'permission_denied', `API key missing required scope '${scope}'`),
  permissionDenied: (detail = 'You do not have permission to perform this action.') =>
    new ApiError(403, 'authentication_error', 'permission_denied', detail),
  // Sign-in (src/access/sessions/): PostHog's login answers a wrong email or password alike.
  invalidCredentials: () =>
    new ApiError(400, 'validation_error', 'invalid_credentials', 'Invalid email or password.'),
  // A session cookie on a write without the app's header, or from another origin.
  csrfFailed: (detail: string) =>
    new ApiError(403, 'authentication_error', 'csrf_failed', `CSRF Failed: ${detail}`),
  sessionExpired: () =>
    new ApiError(401, 'authentication_error', 'authentication_failed', 'Your session has expired or was signed out. Sign in again.'),
  // DRF's ParseError: type invalid_request, not validation_error.
  parseError: (detail: string) =>
    new ApiError(400, 'invalid_request', 'parse_error', `JSON parse error - ${detail}`),
  invalidChoice: (value: unknown, attr: string) =>
    new ApiError(400, 'validation_error', 'invalid_choice', `"${String(value)}" is not a valid choice.`, attr),
  invalidUuid: (attr: string) =>
    new ApiError(400, 'validation_error', 'invalid', 'Must be a valid UUID.', attr),
  nullField: (attr: string) =>
    new ApiError(400, 'validation_error', 'null', 'This field may not be null.', attr),
  notAString: (attr: string) =>
    new ApiError(400, 'validation_error', 'invalid', 'Not a valid string.', attr),
  notABoolean: (attr: string) =>
    new ApiError(400, 'validation_error', 'invalid', 'Must be a valid boolean.', attr),
  tooLong: (attr: string, max: number) =>
    new ApiError(400, 'validation_error', 'max_length', `Ensure this field has no more than ${max} characters.`, attr),
  blank: (attr: string) =>
    new ApiError(400, 'validation_error', 'blank', 'This field may not be blank.', attr),
  notADictionary: (got: string) =>
    new ApiError(400, 'validation_error', 'invalid', `Invalid data. Expected a dictionary, but got ${got}.`),
  // Access to a project (PostHog's TeamMemberAccessPermission and friends).
  noProjectAccess: () => new ApiError(403, 'authentication_error', 'permission_denied', "You don't have access to the project."),
  insufficientProjectLevel: () =>
    new ApiError(403, 'authentication_error', 'permission_denied', "You don't have sufficient permissions in the project."),
  insufficientOrgLevel: (detail = 'Your organization access level is insufficient.') =>
    new ApiError(403, 'authentication_error', 'permission_denied', detail),
  projectScopedKeyOnOrgRoute: () =>
    new ApiError(403, 'authentication_error', 'permission_denied',
      'API keys with scoped projects are only supported on project-based endpoints.'),
  // Explicit project members, in PostHog's words.
  membersNeedAccessControl: () =>
    new ApiError(400, 'validation_error', 'invalid_input',
      'Explicit members can only be accessed for projects with project-based permissioning enabled.'),
  memberSelfAdd: () => new ApiError(403, 'authentication_error', 'permission_denied', "You can't explicitly add yourself to projects."),
  memberLevelAboveOwn: () =>
    new ApiError(403, 'authentication_error', 'permission_denied', 'You can only set access level to lower or equal to your current one.'),
  memberEditAbove: () =>
    new ApiError(403, 'authentication_error', 'permission_denied', 'You can only edit others with level lower or equal to you.'),
  memberOwnLevel: () => new ApiError(403, 'authentication_error', 'permission_denied', "You can't set your own access level."),
  memberOutsideOrganization: () =>
    new ApiError(403, 'authentication_error', 'permission_denied', 'You both need to belong to the same organization.'),
  memberDuplicate: () =>
    new ApiError(400, 'validation_error', 'invalid_input', 'This user likely already is an explicit member of the project.'),
  // DRF's choice error with the allowed formats named, so a client can correct the request.
  invalidExportFormat: (value: unknown, allowed: readonly string[]) =>
    new ApiError(400, 'validation_error', 'invalid_choice',
      `"${String(value)}" is not a valid choice. Allowed values: ${allowed.join(', ')}.`, 'export_format'),
  // DRF's PrimaryKeyRelatedField and DateTimeField, in their words.
  doesNotExist: (attr: string, pk: unknown) =>
    new ApiError(400, 'validation_error', 'does_not_exist', `Invalid pk "${String(pk)}" - object does not exist.`, attr),
  incorrectPkType: (attr: string, got: string) =>
    new ApiError(400, 'validation_error', 'incorrect_type', `Incorrect type. Expected pk value, received ${got}.`, attr),
  dateTimeFormat: (attr: string) =>
    new ApiError(400, 'validation_error', 'invalid',
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', attr),
  // Exported assets (PostHog's ExportedAssetSerializer.validate, and what hedgerow lacks).
  exportTargetRequired: () =>
    new ApiError(400, 'validation_error', 'invalid_input', 'Either dashboard, insight or export_context is required for an export.'),
  insightOfAnotherProject: () =>
    new ApiError(400, 'validation_error', 'invalid_input', 'This insight does not belong to your team.', 'insight'),
  dashboardOfAnotherProject: () =>
    new ApiError(400, 'validation_error', 'invalid_input', 'This dashboard does not belong to your team.', 'dashboard'),
  // A whole dashboard is a picture, a document or its data; its tables have no one file.
  dashboardFormat: (format: string, allowed: readonly string[]) =>
    new ApiError(400, 'validation_error', 'invalid_input',
      `A dashboard cannot be exported as ${format}. Export it as ${allowed.join(', ')}, or export one of its insights.`, 'export_format'),
  insightWithoutQuery: () =>
    new ApiError(400, 'validation_error', 'invalid_input',
      'This insight has no query (only legacy filters), so hedgerow cannot export it. Save it with a query first.', 'insight'),
  exportContextWithoutQuery: () =>
    new ApiError(400, 'validation_error', 'invalid_input',
      'Without an insight, export_context must carry the query to export in "source" (hedgerow does not export API paths).', 'export_context'),
  notFound: () => new ApiError(404, 'invalid_request', 'not_found', 'Not found.'),
  // PostHog's EnterpriseFeatureException, as a self-hosted instance words it.
  premiumFeature: () => new ApiError(402, 'invalid_request', 'payment_required',
    'This feature is part of the premium PostHog offering. Self-hosted licenses are no longer available for purchase. Please contact sales@posthog.com to discuss options.'),
  projectNotFound: () => new ApiError(404, 'invalid_request', 'not_found', 'Project not found.'),
  methodNotAllowed: (method: string) =>
    new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`),
  // DELETE of a resource deleted only softly (PATCH {"deleted": true}): flags, cohorts,
  // hog functions, insights. PostHog answers 405 with no body.
  softDeleteOnly: () =>
    new ApiError(405, 'invalid_request', 'method_not_allowed', 'Method "DELETE" not allowed.', null, undefined, true),
  // A key the stores cannot keep as sent (src/capture/storable.ts): refused rather than
  // acknowledged and then lost.
  unstorableKey: (key: string, event: number) =>
    new ApiError(400, 'validation_error', 'invalid_payload',
      `Property keys named "__proto__" or "toJSON" cannot be stored: event ${event} of the request has a key "${key}". Rename it.`, 'properties'),
  // JSON nested deeper than the service hands on (docs/decisions/0028): past a few
  // thousand levels structured clone, msgpackr and JSON.stringify overflow the stack.
  tooDeep: (levels: number, attr: string | null) =>
    new ApiError(400, 'validation_error', 'invalid_input', `Objects nested more than ${levels} levels deep are not accepted.`, attr),
  // Hog and HogQL sources are bounded before they reach the parser, whose time grows
  // steeply with nesting (docs/decisions/0039).
  sourceTooDeep: (what: string, levels: number, max: number, attr: string | null) =>
    new ApiError(400, 'validation_error', 'source_too_deep',
      `${what} nests parentheses, brackets and braces ${levels} levels deep; at most ${max} are accepted.`, attr),
  sourceTooLarge: (what: string, bytes: number, max: number, attr: string | null) =>
    new ApiError(400, 'validation_error', 'source_too_large',
      `${what} is ${bytes.toLocaleString('en')} bytes long; at most ${max.toLocaleString('en')} are accepted.`, attr),
  // The parser's own deadline, past the bounds above (0039).
  compileTimedOut: (seconds: number, attr: string | null) =>
    new ApiError(400, 'validation_error', 'compile_timeout',
      `Compiling took longer than ${seconds} seconds and was stopped: simplify the code, its inputs or its filters.`, attr),
  // What a /decide or /flags request hands to the flag worker, bounded (0028).
  flagRequestTooLarge: (maxValues: number, attr: string) =>
    new ApiError(400, 'validation_error', 'invalid_input',
      `A request may carry at most ${maxValues.toLocaleString('en')} values in groups, person_properties and group_properties.`, attr),
  tooLarge: (detail = 'Request body is too large.') =>
    new ApiError(413, 'invalid_request', 'payload_too_large', detail),
  // Objects and arrays cost heap when parsed whatever their bytes (src/capture/json-nodes.ts).
  tooManyJsonNodes: (max: number) =>
    new ApiError(413, 'invalid_request', 'payload_too_large',
      `Request body has more than ${max} JSON objects and arrays: send fewer events per request.`),
  // The local-evaluation feed of an organization over its feature flag quota (PostHog's words).
  quotaLimited: () =>
    new ApiError(402, 'quota_limited', 'payment_required', 'You have exceeded your feature flag request quota'),
  throttled: (retryAfterSeconds: number) =>
    new ApiError(429, 'throttled_error', 'throttled',
      `Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`, null,
      { 'Retry-After': String(retryAfterSeconds) }),
  unavailable: (detail = 'The service cannot accept events right now. Retry later.') =>
    new ApiError(503, 'server_error', 'service_unavailable', detail),
  internal: () => new ApiError(500, 'server_error', 'error', 'A server error occurred.'),
} as const;

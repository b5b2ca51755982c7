// Issue trackers: Linear (its GraphQL API: issueCreate, then a link back to the error
// tracking issue) and GitHub (REST: create an issue). PostHog's ids and input names; both
// are meant for error tracking's issue events.
import type { HogFunctionTemplate } from './types.js';
import { INTEGRATION_NOTE } from './integration.js';

const issueInputs = [
  { key: 'title', type: 'string', label: 'Title', secret: false, hidden: false, required: true, default: '{event.properties.$exception_types[1]}' },
  { key: 'description', type: 'string', label: 'Description', secret: false, hidden: false, required: true, default: '{event.properties.$exception_values[1]}' },
  { key: 'posthog_issue_id', type: 'string', label: 'PostHog issue ID', secret: false, hidden: true, required: true, default: '{event.properties.$exception_issue_id}' },
];

// A personal API key (lin_api_…) goes in Authorization as it is, an OAuth token as a bearer.
const linearCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No Linear key: set the access_token input (Linear connections are not available here)')
}
let headers := {'Authorization': startsWith(token, 'lin_api_') ? token : f'Bearer {token}', 'Content-Type': 'application/json'}

let created := fetch('https://api.linear.app/graphql', {
  'method': 'POST', 'headers': headers,
  'body': {
    'query': 'mutation IssueCreate($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id identifier url } } }',
    'variables': {'input': {'teamId': inputs.team, 'title': inputs.title, 'description': inputs.description}}
  }
})
if (created.status != 200 or not empty(created.body.errors) or created.body.data.issueCreate.success != true) {
  throw Error(f'Linear did not create the issue: {created.status}: {created.body}')
}

let linked := fetch('https://api.linear.app/graphql', {
  'method': 'POST', 'headers': headers,
  'body': {
    'query': 'mutation AttachmentCreate($input: AttachmentCreateInput!) { attachmentCreate(input: $input) { success } }',
    'variables': {'input': {
      'issueId': created.body.data.issueCreate.issue.id, 'title': 'Error tracking issue',
      'url': f'{project.url}/error_tracking/{inputs.posthog_issue_id}'
    }}
  }
})
if (linked.status != 200 or not empty(linked.body.errors)) {
  print(f'Linear did not attach the link: {linked.status}: {linked.body}')
}
return {'identifier': created.body.data.issueCreate.issue.identifier, 'url': created.body.data.issueCreate.issue.url}
`;

export const linearTemplate: HogFunctionTemplate = {
  id: 'template-linear',
  name: 'Linear',
  description: 'Creates an issue for a Linear team',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Error tracking'],
  icon_url: '/static/services/linear.png',
  code: linearCode,
  inputs_schema: [
    { key: 'linear_workspace', type: 'integration', integration: 'linear', label: 'Linear workspace', secret: false, hidden: false, required: false, description: INTEGRATION_NOTE },
    { key: 'access_token', type: 'string', label: 'Linear API key', description: 'A personal API key (lin_api_…) or an OAuth token.', secret: true, required: false },
    { key: 'team', type: 'integration_field', integration_key: 'linear_workspace', integration_field: 'linear_team', label: 'Team', description: 'The team\'s id.', secret: false, hidden: false, required: true },
    ...issueInputs,
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

// The owner comes from the repository input when it is "owner/name", else from the
// github_owner input (PostHog reads it from the GitHub installation).
const githubCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No GitHub token: set the access_token input (GitHub installations are not available here)')
}
let parts := splitByString('/', inputs.repository ?? '')
let owner := length(parts) == 2 ? parts[1] : inputs.github_owner
let repo := length(parts) == 2 ? parts[2] : inputs.repository
if (empty(owner) or empty(repo)) {
  throw Error('The repository must be owner/name, or github_owner must be set')
}
let link := empty(inputs.posthog_issue_url) ? f'{project.url}/error_tracking/{inputs.posthog_issue_id}' : inputs.posthog_issue_url

let res := fetch(f'https://api.github.com/repos/{owner}/{repo}/issues', {
  'method': 'POST',
  'headers': {
    'Authorization': f'Bearer {token}', 'Accept': 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28',
    'Content-Type': 'application/json', 'User-Agent': 'hedgerow'
  },
  'body': {'title': inputs.title, 'body': f'{inputs.description}\\n\\n[View the issue]({link})'}
})
if (res.status < 200 or res.status >= 300) {
  throw Error(f'GitHub did not create the issue: {res.status}: {res.body}')
}
return {'number': res.body.number, 'url': res.body.html_url}
`;

export const githubTemplate: HogFunctionTemplate = {
  id: 'template-github',
  name: 'GitHub',
  description: 'Creates an issue in a GitHub repository',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Error tracking'],
  icon_url: '/static/services/github.png',
  code: githubCode,
  inputs_schema: [
    { key: 'github_installation', type: 'integration', integration: 'github', label: 'GitHub installation', secret: false, hidden: false, required: false, description: INTEGRATION_NOTE },
    { key: 'access_token', type: 'string', label: 'GitHub token', description: 'A fine-grained token with Issues: write on the repository.', secret: true, required: false },
    { key: 'github_owner', type: 'string', label: 'Owner', description: 'When the repository is given without it.', secret: false, required: false },
    { key: 'repository', type: 'integration_field', integration_key: 'github_installation', integration_field: 'github_repository', label: 'Repository', secret: false, hidden: false, required: true },
    ...issueInputs,
    { key: 'posthog_issue_url', type: 'string', label: 'Issue URL', secret: false, hidden: true, required: false },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

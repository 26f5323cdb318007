/** Generated services, part 1: building and running software. */
import type { ServiceSpec } from './model.js';

const codehost: ServiceSpec = {
  name: 'codehost',
  params: {
    owner: 'Account or organization that owns the repository',
    repo: 'Repository name',
    org: 'Organization login',
    pull_number: 'Number of the pull request',
    path: 'File path inside the repository',
    ref: 'Branch, tag or commit SHA; the default branch when omitted',
  },
  entities: [
    {
      name: 'repository',
      plural: 'repositories',
      gloss: 'a Git project with its code, history and settings',
      where: 'of an account',
      scope: 'owner',
      fields:
        'name!:Repository name|description:Short description shown on the repository page|visibility=public,private,internal:Who can see the repository|default_branch:Branch that pull requests target by default|has_wiki^:Whether the wiki is enabled',
      verbs: 'list get create update delete search archive export count permissions',
    },
    {
      name: 'branch',
      gloss: 'a named line of development',
      where: 'in a repository',
      scope: 'owner repo',
      fields: 'name!:Name of the new branch|from_ref!:Commit SHA or branch to start from',
      verbs: 'list get create delete count',
    },
    {
      name: 'pull_request',
      gloss: 'a proposed change that merges commits from one branch into another',
      where: 'in a repository',
      scope: 'owner repo',
      fields:
        'title!:Title of the pull request|head!:Branch containing the changes|base!:Branch to merge into|body:Description in Markdown|draft^:Open it as a draft',
      verbs: 'list get create update search comments comment watch count history',
    },
    {
      name: 'commit',
      gloss: 'a recorded snapshot of changes',
      where: 'in a repository',
      scope: 'owner repo',
      fields: 'message!:Commit message|tree!:SHA of the tree object|parents[]:Parent commit SHAs',
      verbs: 'list get comments comment search',
    },
    {
      name: 'release',
      gloss: 'a named, downloadable version built from a tag',
      where: 'of a repository',
      scope: 'owner repo',
      fields:
        'tag_name!:Tag the release points to|name:Release title|body:Release notes in Markdown|prerelease^:Mark as a pre-release|draft^:Save as a draft',
      verbs: 'list get create update delete',
    },
    {
      name: 'tag',
      gloss: 'a fixed name for one commit',
      where: 'in a repository',
      scope: 'owner repo',
      fields: 'name!:Tag name, e.g. v1.2.0|sha!:Commit the tag points to|message:Annotation message',
      verbs: 'list get create delete',
    },
    {
      name: 'webhook',
      gloss: 'a URL that receives an HTTP POST for repository events',
      where: 'of a repository',
      scope: 'owner repo',
      fields:
        'url!:Payload URL|events[]!:Events that trigger the hook, e.g. push|secret:Shared secret used to sign payloads|active^:Whether deliveries are sent',
      verbs: 'list get create update delete',
    },
    {
      name: 'deploy_key',
      gloss: 'an SSH key that grants one repository read or write access',
      where: 'of a repository',
      scope: 'owner repo',
      fields: 'title!:Name to recognise the key by|key!:Public SSH key|read_only^:Deny pushes with this key',
      verbs: 'list get create delete',
    },
    {
      name: 'gist',
      gloss: 'a small shareable snippet of code or text',
      where: 'of the signed-in user',
      fields:
        'filename!:Name of the file in the gist|content!:File contents|public^:Whether anyone can see it|description:What the gist is for',
      verbs: 'list get create update delete duplicate',
    },
    {
      name: 'code_scanning_alert',
      gloss: 'a potential vulnerability found by static analysis',
      where: 'in a repository',
      scope: 'owner repo',
      fields:
        'state=open,dismissed,fixed:Alert state|dismissed_reason=false_positive,wont_fix,used_in_tests:Why it was dismissed',
      verbs: 'list get update count',
    },
    {
      name: 'team',
      gloss: 'a group of organization members with shared repository access',
      where: 'in an organization',
      scope: 'org',
      fields: 'name!:Team name|description:What the team does|privacy=secret,closed:Who can see the team',
      verbs: 'list get create update delete',
    },
    {
      name: 'discussion',
      gloss: 'a forum-style conversation in a repository',
      where: 'in a repository',
      scope: 'owner repo',
      fields:
        'title!:Discussion title|body!:Opening post in Markdown|category!:Category such as Q&A or Ideas',
      verbs: 'list get create update delete comments comment search',
    },
    {
      name: 'ssh_key',
      gloss: 'a public key that lets the signed-in user push and pull over SSH',
      where: 'of the signed-in user',
      fields: 'title!:Label for the key|key!:Public key, e.g. ssh-ed25519 AAAA…',
      verbs: 'list get create delete',
    },
  ],
  actions: [
    {
      name: 'merge_pull_request',
      description: 'Merge a pull request into its base branch with a merge commit, squash or rebase.',
      params:
        'owner!|repo!|pull_number#!|merge_method=merge,squash,rebase:How the commits are combined|commit_title:Title of the merge commit',
    },
    {
      name: 'request_reviewers',
      description: 'Ask people or teams to review a pull request.',
      params:
        'owner!|repo!|pull_number#!|reviewers[]:Logins of the people to ask|team_reviewers[]:Team slugs to ask',
    },
    {
      name: 'submit_review',
      title: 'Submit Pull Request Review',
      description: 'Approve a pull request, request changes to it, or leave review comments.',
      params:
        'owner!|repo!|pull_number#!|event!=approve,request_changes,comment:The verdict|body:Overall review comment',
    },
    {
      name: 'get_pull_request_diff',
      description: 'Returns the unified diff of a pull request.',
      params: 'owner!|repo!|pull_number#!',
    },
    {
      name: 'list_pull_request_files',
      description: 'Returns the files a pull request changes, with additions and deletions per file.',
      params: 'owner!|repo!|pull_number#!',
    },
    {
      name: 'get_file_contents',
      description: 'Read a file or directory listing from a repository at a given ref.',
      params: 'owner!|repo!|path!|ref',
    },
    {
      name: 'create_or_update_file',
      description: 'Commit a new or changed file to a branch in one step.',
      params:
        'owner!|repo!|path!|content!:New file contents|message!:Commit message|branch:Branch to commit to|sha:Blob SHA of the file being replaced',
    },
    {
      name: 'delete_file',
      description: 'Remove a file from a branch with a commit.',
      params: 'owner!|repo!|path!|message!:Commit message|sha!:Blob SHA of the file',
    },
    {
      name: 'compare_commits',
      description: 'Show the commits and file changes between two refs.',
      params: 'owner!|repo!|base!:Starting ref|head!:Ending ref',
    },
    {
      name: 'fork_repository',
      description: 'Copy a repository into your account or an organization, keeping a link to the original.',
      params: 'owner!|repo!|organization:Organization to fork into',
    },
    {
      name: 'add_collaborator',
      description: 'Invite a user to a repository with a permission level.',
      params:
        'owner!|repo!|username!:Login of the person|permission=read,triage,write,maintain,admin:Access level',
    },
    {
      name: 'remove_collaborator',
      description: "Take away a user's access to a repository.",
      params: 'owner!|repo!|username!:Login of the person',
    },
    {
      name: 'list_collaborators',
      description: 'Returns everyone with access to a repository and their permission.',
      params: 'owner!|repo!',
    },
    {
      name: 'set_branch_protection',
      description:
        'Require reviews, passing status checks or signed commits before anything lands on a branch.',
      params:
        'owner!|repo!|branch!:Branch to protect|required_approvals#:Approving reviews needed|required_checks[]:Status checks that must pass|enforce_admins^:Apply to administrators too',
    },
    {
      name: 'get_blame',
      description: 'Show which commit and author last touched each line of a file.',
      params: 'owner!|repo!|path!|ref',
    },
    {
      name: 'search_code',
      description: 'Find source code across repositories by text or symbol.',
      params: 'query!:Code search query, e.g. "parseConfig language:ts"|limit#:Maximum results',
    },
    {
      name: 'list_contributors',
      description: 'Returns the people who committed to a repository, most active first.',
      params: 'owner!|repo!',
    },
    {
      name: 'get_repository_languages',
      description: 'Returns the programming languages of a repository and how many bytes of each.',
      params: 'owner!|repo!',
    },
    {
      name: 'transfer_repository',
      description: 'Give a repository to another user or organization.',
      params: 'owner!|repo!|new_owner!:Account that will own it',
    },
    {
      name: 'star_repository',
      description: 'Star a repository for the signed-in user.',
      params: 'owner!|repo!',
    },
  ],
};

const tracker: ServiceSpec = {
  name: 'tracker',
  params: {
    project_key: 'Key of the project, e.g. WEB',
    issue_key: 'Key of the issue, e.g. WEB-123',
    board_id: 'ID of the board',
  },
  entities: [
    {
      name: 'issue',
      gloss: 'a bug, task or story that someone has to work on',
      where: 'in a project',
      scope: 'project_key',
      fields:
        'summary!:One-line summary|description:Details in Markdown|issue_type=bug,task,story,epic:Kind of work|priority=lowest,low,medium,high,highest:How urgent it is|assignee:Account ID of the assignee|labels[]:Labels to apply|due_date:Due date (YYYY-MM-DD)',
      verbs: 'list get create update delete search comments comment watch count history bulk export',
    },
    {
      name: 'project',
      gloss: 'a container of issues with its own workflow and members',
      fields:
        'key!:Short uppercase key|name!:Project name|lead:Account ID of the project lead|template=scrum,kanban,basic:Board template',
      verbs: 'list get create update delete archive restore count export history permissions',
    },
    {
      name: 'sprint',
      gloss: 'a fixed time box in which the team completes a set of issues',
      where: 'on a board',
      scope: 'board_id',
      fields:
        'name!:Sprint name|goal:What the sprint should achieve|start_date:Start (YYYY-MM-DD)|end_date:End (YYYY-MM-DD)',
      verbs: 'list get create update delete count history',
    },
    {
      name: 'board',
      gloss: 'a scrum or kanban view of issues arranged in columns',
      fields: 'name!:Board name|project_key!|type=scrum,kanban:Board type',
      verbs: 'list get create delete update share',
    },
    {
      name: 'label',
      gloss: 'a tag used to group issues',
      where: 'in a project',
      scope: 'project_key',
      fields: 'name!:Label text|color:Hex color',
      verbs: 'list create update delete get count',
    },
    {
      name: 'milestone',
      gloss: 'a target date that groups the issues due for it',
      where: 'in a project',
      scope: 'project_key',
      fields: 'title!:Milestone title|due_on:Due date|description:What it delivers',
      verbs: 'list get create update delete count',
    },
    {
      name: 'component',
      gloss: 'a part of the product that issues can be filed against',
      where: 'in a project',
      scope: 'project_key',
      fields: 'name!:Component name|lead:Default assignee for its issues',
      verbs: 'list create update delete get',
    },
    {
      name: 'version',
      gloss: 'a release that issues are fixed in',
      where: 'in a project',
      scope: 'project_key',
      fields: 'name!:Version name, e.g. 2.4|release_date:Planned release date|released^:Whether it shipped',
      verbs: 'list get create update delete count archive restore',
    },
    {
      name: 'worklog',
      gloss: 'a record of time someone spent on an issue',
      where: 'on an issue',
      scope: 'issue_key',
      fields: 'time_spent!:Duration such as 2h 30m|started:When the work began|comment:What was done',
      verbs: 'list create update delete get export',
    },
    {
      name: 'attachment',
      gloss: 'a file attached to an issue',
      where: 'on an issue',
      scope: 'issue_key',
      fields: 'filename!:File name|content_base64!:File contents, base64',
      verbs: 'list get create delete',
    },
    {
      name: 'filter',
      gloss: 'a saved issue query',
      fields: 'name!:Filter name|jql!:Query in the tracker query language|favourite^:Star it',
      verbs: 'list get create update delete share duplicate',
    },
    {
      name: 'workflow',
      gloss: 'the statuses an issue moves through and the transitions between them',
      fields: 'name!:Workflow name|statuses[]!:Statuses in order',
      verbs: 'list get create update delete duplicate',
    },
  ],
  actions: [
    {
      name: 'transition_issue',
      description: 'Move an issue to another status, such as In Progress or Done.',
      params: 'issue_key!|status!:Target status|resolution:Resolution when closing, e.g. Fixed',
    },
    {
      name: 'assign_issue',
      description: 'Give an issue to a person, or unassign it.',
      params: 'issue_key!|assignee:Account ID; empty to unassign',
    },
    {
      name: 'link_issues',
      description: 'Relate two issues, e.g. one blocks or duplicates the other.',
      params:
        'inward_issue!:Key of the first issue|outward_issue!:Key of the second issue|link_type=blocks,duplicates,relates_to,clones:Kind of link',
    },
    {
      name: 'move_issues_to_sprint',
      description: 'Put issues into a sprint.',
      params: 'sprint_id!:Sprint to fill|issue_keys[]!:Issues to move',
    },
    {
      name: 'start_sprint',
      description: 'Begin a planned sprint on its board.',
      params: 'sprint_id!:Sprint to start',
    },
    {
      name: 'complete_sprint',
      description: 'Close the active sprint; unfinished issues move to the backlog or the next sprint.',
      params: 'sprint_id!:Sprint to complete|move_open_to=backlog,next_sprint:Where unfinished work goes',
    },
    {
      name: 'get_backlog',
      description: 'Returns the issues on a board that are not in any sprint, in rank order.',
      params: 'board_id!',
    },
    {
      name: 'rank_issue',
      description: 'Reorder an issue in the backlog before or after another.',
      params: 'issue_key!|before:Issue to place it above|after:Issue to place it below',
    },
    {
      name: 'get_velocity',
      description: 'Story points committed and completed in recent sprints of a board.',
      params: 'board_id!|sprints#:How many past sprints',
    },
    {
      name: 'get_burndown',
      description: 'Remaining work per day of a sprint.',
      params: 'sprint_id!:Sprint to chart',
    },
    {
      name: 'add_watcher',
      description: 'Let another person receive notifications about an issue.',
      params: 'issue_key!|account_id!:Person to add',
    },
    {
      name: 'clone_issue',
      description: 'Copy an issue with its fields into the same or another project.',
      params: 'issue_key!|target_project:Project to copy it to',
    },
    {
      name: 'get_my_open_issues',
      description: 'Returns unresolved issues assigned to the signed-in user.',
      params: 'limit#:Maximum results',
    },
  ],
};

const wiki: ServiceSpec = {
  name: 'wiki',
  params: { space_key: 'Key of the space, e.g. ENG', page_id: 'ID of the page' },
  entities: [
    {
      name: 'page',
      gloss: 'a document of the knowledge base',
      where: 'in a space',
      scope: 'space_key',
      fields:
        'title!:Page title|body!:Content in the wiki storage format or Markdown|parent_id:Page to nest it under|labels[]:Labels',
      verbs:
        'list get create update delete search comments comment watch history archive restore export permissions share duplicate',
    },
    {
      name: 'space',
      gloss: 'an area of the wiki owned by a team',
      fields: 'key!:Short space key|name!:Space name|description:What the space is for',
      verbs: 'list get create update delete archive restore permissions export',
    },
    {
      name: 'blog_post',
      gloss: 'a dated announcement in a space',
      where: 'in a space',
      scope: 'space_key',
      fields: 'title!:Post title|body!:Content|publish_at:Schedule publication',
      verbs: 'list get create update delete comments comment search watch history archive restore',
    },
    {
      name: 'template',
      gloss: 'a reusable page layout',
      where: 'in a space',
      scope: 'space_key',
      fields: 'name!:Template name|body!:Template content|description:When to use it',
      verbs: 'list get create update delete duplicate search',
    },
    {
      name: 'page_attachment',
      gloss: 'a file attached to a page',
      where: 'on a page',
      scope: 'page_id',
      fields: 'filename!:File name|content_base64!:Contents, base64|comment:Version comment',
      verbs: 'list get create delete history',
    },
    {
      name: 'page_label',
      gloss: 'a keyword used to group pages',
      where: 'on a page',
      scope: 'page_id',
      fields: 'name!:Label text',
      verbs: 'list create delete',
    },
    {
      name: 'page_version',
      gloss: 'a saved revision of a page',
      where: 'of a page',
      scope: 'page_id',
      fields: 'version_number#!:Revision number',
      verbs: 'list get',
    },
    {
      name: 'whiteboard',
      gloss: 'a free-form canvas for diagrams and sticky notes',
      where: 'in a space',
      scope: 'space_key',
      fields: 'title!:Whiteboard title',
      verbs: 'list get create delete',
    },
    {
      name: 'draft',
      gloss: 'an unpublished page being written',
      where: 'in a space',
      scope: 'space_key',
      fields: 'title!:Working title|body:Content so far',
      verbs: 'list get create update delete',
    },
    {
      name: 'user_group',
      gloss: 'a named set of users that permissions can be given to',
      fields: 'name!:Group name',
      verbs: 'list get create delete',
    },
    {
      name: 'space_shortcut',
      gloss: 'a link pinned to the sidebar of a space',
      where: 'in a space',
      scope: 'space_key',
      fields: 'title!:Link text|url!:Where it points',
      verbs: 'list create delete',
    },
    {
      name: 'inline_task',
      gloss: 'a checkbox item on a page, assigned to someone',
      fields: 'status=complete,incomplete:Whether it is done|assignee:Person responsible|due_date:Due date',
      verbs: 'list get update',
    },
    {
      name: 'content_property',
      gloss: 'a key-value pair of metadata stored on a page',
      where: 'on a page',
      scope: 'page_id',
      fields: 'key!:Property key|value!:JSON value',
      verbs: 'list get create update delete',
    },
    {
      name: 'space_category',
      gloss: 'a grouping of spaces in the space directory',
      fields: 'name!:Category name',
      verbs: 'list create delete',
    },
    {
      name: 'webhook',
      gloss: 'a URL notified when pages or comments change',
      fields: 'url!:Callback URL|events[]!:Events to send, e.g. page_created',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'publish_draft',
      description: 'Make a draft visible to everyone who can read its space.',
      params: 'draft_id!:Draft to publish',
    },
    {
      name: 'move_page',
      description: 'Put a page under another parent or into another space.',
      params: 'page_id!|target_parent_id:New parent page|target_space_key:New space',
    },
    {
      name: 'revert_page',
      description: 'Roll a page back to an earlier version.',
      params: 'page_id!|version_number#!:Revision to go back to',
    },
    {
      name: 'compare_page_versions',
      description: 'Show what changed in a page between two revisions.',
      params: 'page_id!|from_version#!:Older revision|to_version#!:Newer revision',
    },
    {
      name: 'get_page_tree',
      description: 'Returns the hierarchy of pages under a page or the root of a space.',
      params: 'space_key!|root_page_id:Start below this page',
    },
    { name: 'get_page_as_pdf', description: 'Render a page to a PDF document.', params: 'page_id!' },
    {
      name: 'list_recently_viewed',
      description: 'Pages the signed-in user opened lately.',
      params: 'limit#:Maximum results',
    },
    {
      name: 'get_page_analytics',
      description: 'How many people viewed a page, and when.',
      params: 'page_id!|days#:Period in days',
    },
    {
      name: 'resolve_inline_comment',
      description: 'Mark an inline remark on a page as dealt with.',
      params: 'comment_id!:Inline comment to resolve',
    },
    {
      name: 'convert_markdown',
      description: 'Turn Markdown into the wiki storage format, ready to save as a page body.',
      params: 'markdown!:Markdown source',
    },
  ],
};

const ci: ServiceSpec = {
  name: 'ci',
  params: {
    project: 'CI project slug, e.g. web-app',
    pipeline_id: 'ID of the pipeline run',
    job_id: 'ID of the job',
  },
  entities: [
    {
      name: 'pipeline',
      gloss: 'one run of the build, test and deploy stages for a commit',
      where: 'of a project',
      scope: 'project',
      fields: 'ref!:Branch or tag to build|variables[]:KEY=value variables for this run',
      verbs: 'list get create delete count search export',
    },
    {
      name: 'job',
      gloss: 'a single step of a pipeline run on a runner',
      where: 'of a project',
      scope: 'project',
      fields: 'name!:Job name',
      verbs: 'list get search count export',
    },
    {
      name: 'runner',
      gloss: 'a machine that picks up and executes jobs',
      fields:
        'description!:What the runner is|tags[]:Tags that select jobs for it|paused^:Stop taking jobs|run_untagged^:Also take untagged jobs',
      verbs: 'list get create update delete count search',
    },
    {
      name: 'artifact',
      gloss: 'a file a job saved, such as a build or a test report',
      where: 'of a project',
      scope: 'project',
      fields: 'name!:Artifact name',
      verbs: 'list get delete',
    },
    {
      name: 'schedule',
      gloss: 'a timetable that starts pipelines automatically',
      where: 'of a project',
      scope: 'project',
      fields:
        'description!:What it runs|cron!:Cron expression, e.g. 0 3 * * *|ref!:Branch to build|timezone:IANA time zone|active^:Whether it fires',
      verbs: 'list get create update delete history',
    },
    {
      name: 'variable',
      gloss: 'a CI/CD setting or secret injected into jobs',
      where: 'of a project',
      scope: 'project',
      fields:
        'key!:Variable name|value!:Value|masked^:Hide it in job logs|protected^:Only on protected branches|environment_scope:Environments it applies to',
      verbs: 'list get create update delete history export',
    },
    {
      name: 'environment',
      gloss: 'a deployment target such as staging or production',
      where: 'of a project',
      scope: 'project',
      fields:
        'name!:Environment name|external_url:Where it can be reached|tier=production,staging,testing,development:Kind of environment',
      verbs: 'list get create update delete history count',
    },
    {
      name: 'deployment',
      gloss: 'a record of code being released to an environment',
      where: 'of a project',
      scope: 'project',
      fields: 'environment!:Target environment|ref!:What was deployed|sha:Commit deployed',
      verbs: 'list get create count export history',
    },
    {
      name: 'cache',
      gloss: 'stored dependencies reused between jobs to speed them up',
      where: 'of a project',
      scope: 'project',
      fields: 'key!:Cache key',
      verbs: 'list delete',
    },
    {
      name: 'pipeline_template',
      gloss: 'a reusable pipeline definition other projects include',
      fields: 'name!:Template name|content!:YAML definition|description:What it builds',
      verbs: 'list get create update delete duplicate search history share',
    },
    {
      name: 'trigger_token',
      gloss: 'a token that lets outside systems start pipelines',
      where: 'of a project',
      scope: 'project',
      fields: 'description!:Who uses the token',
      verbs: 'list create delete',
    },
    {
      name: 'test_report',
      gloss: 'the parsed results of the tests a pipeline ran',
      where: 'of a project',
      scope: 'project',
      fields: 'pipeline_id!',
      verbs: 'list get',
    },
    {
      name: 'agent_pool',
      gloss: 'a named group of runners shared by several projects',
      fields: 'name!:Pool name|max_concurrent_jobs#:Jobs running at once',
      verbs: 'list get create update delete',
    },
    {
      name: 'secure_file',
      gloss: 'a signing certificate or keystore kept out of the repository for jobs to use',
      where: 'of a project',
      scope: 'project',
      fields: 'name!:File name|content_base64!:File contents, base64',
      verbs: 'list get create delete',
    },
    {
      name: 'badge',
      gloss: 'a status image, such as build passing or coverage, shown in a README',
      where: 'of a project',
      scope: 'project',
      fields: 'link_url!:Where the badge links to|image_url!:Badge image URL',
      verbs: 'list get create update delete',
    },
    {
      name: 'approval_rule',
      gloss: 'who must approve before a job deploys to a protected environment',
      where: 'of a project',
      scope: 'project',
      fields:
        'environment!:Protected environment|approvers[]!:Users or groups that may approve|required_approvals#:How many approvals',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    { name: 'retry_job', description: 'Run a failed or cancelled job again.', params: 'job_id!' },
    {
      name: 'cancel_pipeline',
      description: 'Stop a running pipeline and all of its pending jobs.',
      params: 'pipeline_id!',
    },
    { name: 'retry_pipeline', description: 'Rerun the failed jobs of a pipeline.', params: 'pipeline_id!' },
    {
      name: 'get_job_log',
      description: 'Returns the console output of a job, optionally only the last lines.',
      params: 'job_id!|tail#:Only the last N lines',
    },
    {
      name: 'play_manual_job',
      description: 'Start a job that waits for someone to run it by hand, such as a production deploy.',
      params: 'job_id!',
    },
    {
      name: 'validate_config',
      description: 'Check a pipeline YAML file for syntax and semantic errors before committing it.',
      params: 'content!:The YAML to check|project',
    },
    {
      name: 'download_artifact_file',
      description: "Fetch one file out of a job's artifact archive.",
      params: 'job_id!|path!:Path inside the archive',
    },
    {
      name: 'get_pipeline_duration_stats',
      description: 'Median and p95 build times per branch over a period.',
      params: 'project!|days#:Period in days',
    },
    {
      name: 'list_flaky_tests',
      description: 'Tests that both passed and failed on the same commit recently.',
      params: 'project!|days#:Period in days',
    },
    {
      name: 'rollback_deployment',
      description: 'Redeploy the previous successful version to an environment.',
      params: 'project!|environment!:Environment to roll back',
    },
    {
      name: 'stop_environment',
      description: 'Tear down a review app or environment.',
      params: 'project!|environment!:Environment to stop',
    },
    {
      name: 'pause_runner',
      description: 'Stop a runner from picking up new jobs without removing it.',
      params: 'runner_id!:Runner to pause',
    },
    {
      name: 'lint_dockerfile',
      description: 'Report problems and bad practices in a Dockerfile.',
      params: 'content!:The Dockerfile',
    },
  ],
};

const monitoring: ServiceSpec = {
  name: 'monitoring',
  params: {
    monitor_id: 'ID of the monitor',
    dashboard_id: 'ID of the dashboard',
    from: 'Start of the time range (ISO 8601 or relative such as now-1h)',
    to: 'End of the time range',
  },
  entities: [
    {
      name: 'monitor',
      gloss: 'a check that alerts when a metric or log query crosses a threshold',
      fields:
        'name!:Monitor name|query!:Metric query and threshold, e.g. avg(last_5m):avg:cpu > 90|message:Notification text with @mentions|priority=p1,p2,p3,p4,p5:Alert priority|tags[]:Tags',
      verbs: 'list get create update delete search duplicate history',
    },
    {
      name: 'dashboard',
      gloss: 'a page of graphs and widgets',
      fields:
        'title!:Dashboard title|layout=ordered,free:Widget layout|description:What it shows|widgets[]:Widget definitions as JSON',
      verbs: 'list get create update delete search duplicate share export',
    },
    {
      name: 'downtime',
      gloss: 'a scheduled silence of alerts during maintenance',
      fields:
        'scope!:Hosts or tags to silence, e.g. env:staging|start!:When it begins|end:When it ends|message:Why',
      verbs: 'list get create update delete history',
    },
    {
      name: 'slo',
      gloss: 'a service level objective with a target and error budget',
      fields:
        'name!:SLO name|target!:Target percentage, e.g. 99.9|timeframe=7d,30d,90d:Rolling window|query!:Good and total events queries',
      verbs: 'list get create update delete history search export',
    },
    {
      name: 'synthetic_test',
      gloss: 'a scripted probe that checks an endpoint from many locations',
      fields:
        'name!:Test name|url!:URL to probe|locations[]:Where to run it from|frequency#:Seconds between runs',
      verbs: 'list get create update delete history duplicate search count',
    },
    {
      name: 'notification_channel',
      gloss: 'a destination for alerts such as email, chat or a pager',
      fields:
        'name!:Channel name|type!=email,chat,webhook,pager:Kind of destination|target!:Address, channel or URL',
      verbs: 'list get create update delete duplicate',
    },
    {
      name: 'log_pipeline',
      gloss: 'rules that parse and enrich incoming logs',
      fields: 'name!:Pipeline name|filter!:Which logs it processes|processors[]:Processing steps as JSON',
      verbs: 'list get create update delete history duplicate',
    },
    {
      name: 'saved_view',
      gloss: 'a stored log or trace search',
      fields: 'name!:View name|query!:Search query',
      verbs: 'list get create delete update share',
    },
    {
      name: 'host',
      gloss: 'a machine that reports metrics',
      fields: 'hostname!:Host name',
      verbs: 'list get count search',
    },
    {
      name: 'api_key',
      gloss: 'a key agents and integrations use to send data',
      fields: 'name!:Key name',
      verbs: 'list get create delete',
    },
    {
      name: 'log_index',
      gloss: 'a storage partition of logs with its own retention',
      fields: 'name!:Index name|filter!:Logs that go into it|retention_days#:Days logs are kept',
      verbs: 'list get create update',
    },
    {
      name: 'status_page',
      gloss: 'a public page showing the health of your services',
      fields: 'name!:Page name|components[]:Services shown on it|custom_domain:Domain to serve it on',
      verbs: 'list get create update delete',
    },
    {
      name: 'team',
      gloss: 'a group of people who own monitors and dashboards',
      fields: 'name!:Team name|handle!:Short handle used in @mentions',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'query_metrics',
      description: 'Run a metrics query and get time series points for a time range.',
      params: 'query!:Metric query, e.g. avg:system.cpu.user{service:web}|from!|to!',
    },
    {
      name: 'search_logs',
      description: 'Find log lines matching a query in a time range.',
      params: 'query!:Log query, e.g. service:api status:error|from!|to!|limit#:Maximum lines',
    },
    {
      name: 'tail_logs',
      description: 'Stream the newest log lines for a service as they arrive.',
      params: 'query!:Log query|seconds#:How long to follow',
    },
    {
      name: 'search_traces',
      description: 'Find distributed traces by service, operation or duration.',
      params: 'query!:Trace query|from!|to!',
    },
    {
      name: 'get_trace',
      description: 'Returns every span of one distributed trace.',
      params: 'trace_id!:ID of the trace',
    },
    {
      name: 'mute_monitor',
      description: "Silence a monitor's notifications for a while.",
      params: 'monitor_id!|until:When to unmute',
    },
    { name: 'unmute_monitor', description: "Turn a monitor's notifications back on.", params: 'monitor_id!' },
    {
      name: 'list_triggered_monitors',
      description: 'Monitors that are currently alerting or warning.',
      params: 'tags[]:Only these tags',
    },
    {
      name: 'get_service_map',
      description: 'Which services call which, with request rates and errors.',
      params: 'env:Environment',
    },
    {
      name: 'list_metrics',
      description: 'Names of the metrics reported in the last day.',
      params: 'prefix:Only names starting with this',
    },
    {
      name: 'get_error_budget',
      description: "How much of an SLO's error budget is left.",
      params: 'slo_id!:ID of the SLO',
    },
    {
      name: 'run_synthetic_test',
      description: 'Trigger a synthetic test now instead of waiting for its schedule.',
      params: 'synthetic_test_id!:Test to run',
    },
    {
      name: 'post_event',
      description: 'Record an event, such as a deploy, on the timeline of graphs.',
      params: 'title!:Event title|text:Details|tags[]:Tags',
    },
    {
      name: 'get_host_metrics',
      description: 'CPU, memory, disk and network usage of one host.',
      params: 'hostname!:Host|from|to',
    },
  ],
};

export const DEV_SERVICES: ServiceSpec[] = [codehost, tracker, wiki, ci, monitoring];

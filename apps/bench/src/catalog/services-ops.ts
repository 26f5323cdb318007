/** Generated services, part 2: operating infrastructure and data. */
import type { ServiceSpec } from './model.js';

const incidents: ServiceSpec = {
  name: 'incidents',
  params: {
    incident_id: 'ID of the incident',
    service_id: 'ID of the service',
    schedule_id: 'ID of the on-call schedule',
  },
  entities: [
    {
      name: 'incident',
      gloss: 'an unplanned outage or degradation that responders work on',
      fields:
        'title!:What is broken|service_id!|urgency=high,low:How fast someone must respond|severity=sev1,sev2,sev3,sev4:Impact level|body:Details',
      verbs: 'list get create update search comments comment watch count history export bulk',
    },
    {
      name: 'service',
      gloss: 'a component that incidents are raised against, with its escalation policy',
      fields:
        'name!:Service name|escalation_policy_id!:Who gets paged|description:What the service does|auto_resolve_minutes#:Resolve open incidents after this long',
      verbs: 'list get create update delete search',
    },
    {
      name: 'schedule',
      gloss: 'an on-call rotation of people over time',
      fields: 'name!:Schedule name|time_zone!:IANA time zone|layers[]!:Rotation layers as JSON',
      verbs: 'list get create update delete export',
    },
    {
      name: 'escalation_policy',
      plural: 'escalation_policies',
      gloss: 'the order in which responders are paged until someone acknowledges',
      fields: 'name!:Policy name|rules[]!:Escalation rules as JSON|repeat#:How often to loop',
      verbs: 'list get create update delete',
    },
    {
      name: 'postmortem',
      gloss: 'a write-up of an incident: timeline, causes and follow-ups',
      fields: 'incident_id!|summary!:What happened|root_cause:Why it happened|action_items[]:Follow-up tasks',
      verbs: 'list get create update comments comment export',
    },
    {
      name: 'maintenance_window',
      gloss: "a period when a service's incidents are not paged",
      fields: 'service_ids[]!:Services affected|start!:Start time|end!:End time|description:Why',
      verbs: 'list get create update delete',
    },
    {
      name: 'responder_team',
      gloss: 'a group of responders who share services and schedules',
      fields: 'name!:Team name|description:Team purpose',
      verbs: 'list get create update delete',
    },
    {
      name: 'status_update',
      gloss: 'a message sent to stakeholders about an ongoing incident',
      where: 'on an incident',
      scope: 'incident_id',
      fields: 'message!:Update text|audience=internal,public:Who sees it',
      verbs: 'list create',
    },
    {
      name: 'alert',
      gloss: 'a signal from monitoring that may open or join an incident',
      fields:
        'summary!:Alert text|source!:Monitoring system|severity=critical,error,warning,info:Alert severity|dedup_key:Key that groups repeats',
      verbs: 'list get create count',
    },
    {
      name: 'runbook',
      gloss: 'step-by-step instructions for handling a kind of incident',
      fields: 'title!:Runbook title|steps!:Steps in Markdown|service_id',
      verbs: 'list get create update delete search',
    },
    {
      name: 'on_call_override',
      gloss: 'a temporary swap of who is on call',
      where: 'on a schedule',
      scope: 'schedule_id',
      fields: 'user_id!:Person covering|start!:From|end!:Until',
      verbs: 'list create delete',
    },
  ],
  actions: [
    {
      name: 'acknowledge_incident',
      description: 'Tell everyone you are working on an incident, which stops further escalation.',
      params: 'incident_id!',
    },
    {
      name: 'resolve_incident',
      description: 'Mark an incident as fixed.',
      params: 'incident_id!|resolution:What fixed it',
    },
    {
      name: 'escalate_incident',
      description: 'Page the next level of the escalation policy now.',
      params: 'incident_id!|level#:Escalation level to jump to',
    },
    {
      name: 'reassign_incident',
      description: 'Hand an incident to another responder or escalation policy.',
      params: 'incident_id!|assignee_id:Responder|escalation_policy_id:Policy',
    },
    {
      name: 'merge_incidents',
      description: 'Fold duplicate incidents into one.',
      params: 'incident_id!:Incident to keep|source_incident_ids[]!:Duplicates to merge in',
    },
    {
      name: 'snooze_incident',
      description: 'Silence an acknowledged incident for a while; it re-alerts afterwards.',
      params: 'incident_id!|minutes#!:How long',
    },
    {
      name: 'get_current_on_call',
      description: 'Who is on call right now for a schedule or escalation policy.',
      params: 'schedule_id|escalation_policy_id:Policy',
    },
    {
      name: 'page_responder',
      description: 'Send an urgent notification to a specific person or team.',
      params: 'user_id:Person to page|team_id:Team to page|message!:Why you need them',
    },
    {
      name: 'add_responders',
      description: 'Bring more people into an incident.',
      params: 'incident_id!|user_ids[]!:People to add',
    },
    {
      name: 'get_incident_timeline',
      description: 'Every event of an incident in order: alerts, pages, acknowledgements, notes.',
      params: 'incident_id!',
    },
    {
      name: 'get_mttr_report',
      description: 'Mean time to acknowledge and resolve incidents per service.',
      params: 'days#:Period in days|service_id',
    },
    {
      name: 'start_incident_call',
      description: 'Open a conference bridge for the responders of an incident.',
      params: 'incident_id!',
    },
  ],
};

const errors: ServiceSpec = {
  name: 'errors',
  params: {
    project_slug: 'Project slug, e.g. backend',
    issue_id: 'ID of the grouped error',
    release: 'Release version, e.g. 2.4.1',
  },
  entities: [
    {
      name: 'error_group',
      gloss: 'a group of identical exceptions with a stack trace',
      where: 'in a project',
      scope: 'project_slug',
      fields: 'status=unresolved,resolved,ignored:State|assigned_to:Person or team',
      verbs: 'list get update delete search comments comment count bulk history',
    },
    {
      name: 'error_event',
      gloss: 'one occurrence of an exception, with its stack trace and context',
      where: 'in a project',
      scope: 'project_slug',
      fields: 'event_id!:ID of the event',
      verbs: 'list get search count',
    },
    {
      name: 'project',
      gloss: 'an application that reports errors',
      fields: 'name!:Project name|platform!:Platform, e.g. python or javascript|team:Owning team',
      verbs: 'list get create update delete',
    },
    {
      name: 'release',
      gloss: 'a deployed version that errors are attributed to',
      where: 'of a project',
      scope: 'project_slug',
      fields: 'version!:Version string|ref:Commit SHA|url:Link to the release notes',
      verbs: 'list get create update delete',
    },
    {
      name: 'alert_rule',
      gloss: 'a condition on errors that sends a notification',
      where: 'of a project',
      scope: 'project_slug',
      fields:
        'name!:Rule name|conditions[]!:Conditions as JSON|actions[]!:Notifications to send|frequency#:Minutes between repeats',
      verbs: 'list get create update delete duplicate',
    },
    {
      name: 'source_map',
      gloss: 'a mapping from minified JavaScript back to source, uploaded per release',
      where: 'of a release',
      scope: 'project_slug release',
      fields: 'name!:File name|content_base64!:Contents, base64',
      verbs: 'list get create delete',
    },
    {
      name: 'debug_file',
      gloss: 'debug symbols used to symbolicate native crashes',
      where: 'of a project',
      scope: 'project_slug',
      fields: 'name!:File name|content_base64!:Contents, base64',
      verbs: 'list get create delete',
    },
    {
      name: 'team',
      gloss: 'a group that owns projects and is assigned errors',
      fields: 'name!:Team name|slug!:Team slug',
      verbs: 'list get create update delete',
    },
    {
      name: 'ownership_rule',
      gloss: 'a rule that assigns errors by file path or URL to a team',
      where: 'of a project',
      scope: 'project_slug',
      fields: 'pattern!:Path or URL pattern|owner!:Team or person',
      verbs: 'list create update delete',
    },
    {
      name: 'performance_transaction',
      gloss: 'a timed request or page load used for performance monitoring',
      where: 'in a project',
      scope: 'project_slug',
      fields: 'name!:Transaction name',
      verbs: 'list get search',
    },
    {
      name: 'replay',
      gloss: 'a recording of what a user did in the browser before an error',
      where: 'in a project',
      scope: 'project_slug',
      fields: 'replay_id!:ID of the replay',
      verbs: 'list get delete',
    },
  ],
  actions: [
    {
      name: 'resolve_error',
      description: 'Mark an error as fixed; it reopens if it happens again.',
      params: 'issue_id!|in_release:Resolved in this release',
    },
    {
      name: 'ignore_error',
      description: 'Stop notifications for an error, forever or until it happens N more times.',
      params: 'issue_id!|until_count#:Wake up after this many more events',
    },
    {
      name: 'merge_error_groups',
      description: 'Combine error groups that are really the same bug.',
      params: 'issue_ids[]!:Groups to merge',
    },
    {
      name: 'get_latest_stack_trace',
      description: 'The stack trace and breadcrumbs of the most recent occurrence of an error.',
      params: 'issue_id!',
    },
    {
      name: 'get_error_frequency',
      description: 'How often an error happened per hour over a period.',
      params: 'issue_id!|hours#:Period in hours',
    },
    {
      name: 'get_affected_users',
      description: 'How many and which users hit an error.',
      params: 'issue_id!',
    },
    {
      name: 'finalize_release',
      description: 'Mark a release as deployed, so new errors are attributed to it.',
      params: 'project_slug!|release!',
    },
    {
      name: 'get_release_health',
      description: 'Crash-free sessions and users of a release.',
      params: 'project_slug!|release!',
    },
    {
      name: 'suggest_fix',
      description: 'Ask the AI assistant for a likely root cause and fix for an error.',
      params: 'issue_id!',
    },
    {
      name: 'link_error_to_ticket',
      description: 'Connect an error to a ticket in an external tracker.',
      params: 'issue_id!|ticket_url!:URL of the ticket',
    },
    {
      name: 'get_slowest_transactions',
      description: 'Endpoints and pages with the worst p95 duration.',
      params: 'project_slug!|limit#:How many',
    },
    {
      name: 'list_suspect_commits',
      description: 'Commits that probably introduced an error, based on blame.',
      params: 'issue_id!',
    },
  ],
};

const registry: ServiceSpec = {
  name: 'registry',
  params: {
    namespace: 'Namespace or organization, e.g. acme',
    repository: 'Image repository name, e.g. web',
    tag: 'Image tag, e.g. 1.4.0',
    digest: 'Content digest, sha256:…',
  },
  entities: [
    {
      name: 'image_repository',
      plural: 'image_repositories',
      gloss: 'a named collection of container image versions',
      where: 'in a namespace',
      scope: 'namespace',
      fields:
        'name!:Repository name|visibility=public,private:Who can pull|description:What the image contains',
      verbs: 'list get create update delete search count permissions share',
    },
    {
      name: 'image_tag',
      gloss: 'a label such as latest or 1.4.0 pointing at one image manifest',
      where: 'in an image repository',
      scope: 'namespace repository',
      fields: 'tag!|digest!',
      verbs: 'list get delete count history',
    },
    {
      name: 'package',
      gloss: 'a published library such as an npm, Maven or PyPI package',
      where: 'in a namespace',
      scope: 'namespace',
      fields: 'name!:Package name|format!=npm,maven,pypi,nuget,go:Package format',
      verbs: 'list get delete search count',
    },
    {
      name: 'package_version',
      gloss: 'one published version of a package',
      where: 'of a package',
      scope: 'namespace',
      fields: 'package!:Package name|version!:Version',
      verbs: 'list get delete',
    },
    {
      name: 'retention_policy',
      plural: 'retention_policies',
      gloss: 'rules that delete old or untagged images automatically',
      where: 'of a namespace',
      scope: 'namespace',
      fields:
        'keep_last#:Keep this many newest tags|older_than_days#:Delete images older than this|tag_pattern:Only tags matching this regex|untagged_only^:Only untagged images',
      verbs: 'list get create update delete',
    },
    {
      name: 'access_token',
      gloss: 'a token for pushing or pulling from CI',
      where: 'of a namespace',
      scope: 'namespace',
      fields: 'name!:Token name|scopes[]!:read, write or delete|expires_at:Expiry date',
      verbs: 'list create delete',
    },
    {
      name: 'replication_rule',
      gloss: 'a rule that mirrors images to another registry or region',
      fields:
        'name!:Rule name|source_filter!:Repositories to copy|destination!:Target registry|trigger=manual,on_push,scheduled:When it runs',
      verbs: 'list get create update delete',
    },
    {
      name: 'robot_account',
      gloss: 'a non-human account for automated pulls and pushes',
      where: 'in a namespace',
      scope: 'namespace',
      fields: 'name!:Account name|permissions[]!:Repositories and actions allowed',
      verbs: 'list get create update delete',
    },
    {
      name: 'webhook',
      gloss: 'a URL called on push, delete or scan events',
      where: 'of a namespace',
      scope: 'namespace',
      fields: 'url!:Endpoint|events[]!:push, delete, scan_completed',
      verbs: 'list get create update delete',
    },
    {
      name: 'signing_key',
      gloss: 'a key used to sign and verify images',
      where: 'of a namespace',
      scope: 'namespace',
      fields: 'name!:Key name|public_key!:PEM public key',
      verbs: 'list get create delete',
    },
  ],
  actions: [
    {
      name: 'scan_image',
      description: 'Check an image for known vulnerabilities (CVEs) in its OS packages and libraries.',
      params: 'namespace!|repository!|tag!',
    },
    {
      name: 'get_vulnerability_report',
      description: 'The CVEs found in an image, by severity, with fixed versions.',
      params: 'namespace!|repository!|digest!',
    },
    {
      name: 'get_image_manifest',
      description: 'The manifest of an image: layers, sizes, platforms.',
      params: 'namespace!|repository!|tag!',
    },
    {
      name: 'get_image_config',
      description: 'The entrypoint, environment variables, labels and exposed ports baked into an image.',
      params: 'namespace!|repository!|tag!',
    },
    {
      name: 'copy_image',
      description: 'Copy an image to another repository or tag without pulling it locally.',
      params:
        'namespace!|repository!|tag!|target_repository!:Destination repository|target_tag!:Destination tag',
    },
    {
      name: 'retag_image',
      description: 'Point a new tag at the same image, e.g. promote 1.4.0 to stable.',
      params: 'namespace!|repository!|tag!|new_tag!:Tag to add',
    },
    {
      name: 'sign_image',
      description: 'Sign an image so clusters can verify where it came from.',
      params: 'namespace!|repository!|digest!|signing_key_id!:Key to sign with',
    },
    {
      name: 'verify_image_signature',
      description: 'Check that an image was signed by a trusted key.',
      params: 'namespace!|repository!|digest!',
    },
    {
      name: 'run_garbage_collection',
      description: 'Free storage held by deleted or unreferenced image layers.',
      params: 'namespace',
    },
    {
      name: 'get_storage_usage',
      description: 'Bytes stored per repository in a namespace.',
      params: 'namespace!',
    },
    {
      name: 'get_pull_statistics',
      description: 'How often each tag of a repository was pulled.',
      params: 'namespace!|repository!|days#:Period in days',
    },
    {
      name: 'generate_sbom',
      description: 'Produce a software bill of materials listing every package inside an image.',
      params: 'namespace!|repository!|digest!|format=spdx,cyclonedx:Output format',
    },
  ],
};

const cluster: ServiceSpec = {
  name: 'cluster',
  params: {
    namespace: 'Kubernetes namespace, e.g. default',
    cluster: 'Cluster name (kube context)',
    name: 'Name of the object',
    selector: 'Label selector, e.g. app=web',
  },
  entities: [
    {
      name: 'pod',
      gloss: 'a group of containers running together on a node',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'manifest!:Pod manifest as YAML or JSON',
      verbs: 'list get create delete count',
    },
    {
      name: 'deployment',
      gloss: 'a controller that keeps a number of identical pods running and rolls out new versions',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'manifest!:Deployment manifest as YAML or JSON',
      verbs: 'list get create update delete history',
    },
    {
      name: 'service',
      gloss: 'a stable network address that load-balances to a set of pods',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'manifest!:Service manifest as YAML or JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'namespace',
      gloss: 'a virtual partition of a cluster',
      where: 'in a cluster',
      scope: 'cluster',
      fields: 'name!:Namespace name|labels[]:key=value labels',
      verbs: 'list get create delete',
    },
    {
      name: 'config_map',
      gloss: 'non-secret configuration mounted into pods',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'name!:Name|data!:Keys and values as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'secret',
      gloss: 'a base64-encoded credential mounted into pods',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'name!:Name|data!:Keys and values as JSON|type:Secret type, e.g. kubernetes.io/tls',
      verbs: 'list get create update delete',
    },
    {
      name: 'node',
      gloss: 'a worker machine in the cluster',
      where: 'in a cluster',
      scope: 'cluster',
      fields: 'name!:Node name',
      verbs: 'list get count',
    },
    {
      name: 'ingress',
      plural: 'ingresses',
      gloss: 'HTTP routing rules from outside the cluster to services',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'manifest!:Ingress manifest as YAML or JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'cron_job',
      gloss: 'a job that runs on a schedule',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'manifest!:CronJob manifest',
      verbs: 'list get create update delete',
    },
    {
      name: 'persistent_volume_claim',
      gloss: 'a request for durable storage by pods',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'manifest!:PVC manifest',
      verbs: 'list get create delete',
    },
    {
      name: 'stateful_set',
      gloss: 'a controller for pods with stable identities and storage, such as databases',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'manifest!:StatefulSet manifest',
      verbs: 'list get create update delete',
    },
    {
      name: 'helm_release',
      gloss: 'an installed Helm chart',
      where: 'in a namespace',
      scope: 'cluster namespace',
      fields: 'chart!:Chart reference, e.g. bitnami/redis|values:Values as YAML|version:Chart version',
      verbs: 'list get create update delete history',
    },
  ],
  actions: [
    {
      name: 'get_pod_logs',
      description:
        'Container output of a pod, optionally the previous crashed container or only recent lines.',
      params:
        'cluster!|namespace!|name!|container:Container in the pod|tail_lines#:Only the last N lines|previous^:Logs of the previous instance',
    },
    {
      name: 'exec_in_pod',
      description: 'Run a command inside a running container and return its output.',
      params: 'cluster!|namespace!|name!|command[]!:Command and arguments|container:Container in the pod',
    },
    {
      name: 'scale_deployment',
      description: 'Change how many replicas of a deployment run.',
      params: 'cluster!|namespace!|name!|replicas#!:Desired replica count',
    },
    {
      name: 'restart_deployment',
      description: 'Roll every pod of a deployment, e.g. to pick up a new config map.',
      params: 'cluster!|namespace!|name!',
    },
    {
      name: 'rollback_deployment',
      description: 'Return a deployment to a previous revision.',
      params: 'cluster!|namespace!|name!|revision#:Revision, the previous one when omitted',
    },
    {
      name: 'get_rollout_status',
      description: "Whether a deployment's rollout has finished, and how many pods are updated and ready.",
      params: 'cluster!|namespace!|name!',
    },
    {
      name: 'list_events',
      description: 'Recent cluster events such as failed scheduling, image pull errors or OOM kills.',
      params: 'cluster!|namespace|involved_object:Only events about this object',
    },
    {
      name: 'cordon_node',
      description: 'Mark a node unschedulable so no new pods land on it.',
      params: 'cluster!|name!',
    },
    {
      name: 'drain_node',
      description: 'Evict all pods from a node before maintenance.',
      params: 'cluster!|name!|ignore_daemonsets^:Skip DaemonSet pods',
    },
    {
      name: 'port_forward',
      description: 'Forward a local port to a pod or service for debugging.',
      params: 'cluster!|namespace!|name!|port#!:Remote port|local_port#:Local port',
    },
    {
      name: 'apply_manifest',
      description: 'Create or update any objects from YAML, like kubectl apply.',
      params: 'cluster!|manifest!:One or more YAML documents|dry_run^:Only validate',
    },
    {
      name: 'get_resource_usage',
      description: 'CPU and memory used by pods or nodes right now.',
      params: 'cluster!|namespace|kind=pod,node:What to measure',
    },
    {
      name: 'describe_object',
      description: 'Everything about one object: spec, status, conditions and related events.',
      params: 'cluster!|namespace|kind!:Object kind, e.g. pod|name!',
    },
    {
      name: 'list_contexts',
      description: 'The clusters and contexts configured for this server.',
      params: '',
    },
  ],
};

const cloud: ServiceSpec = {
  name: 'cloud',
  params: {
    region: 'Region, e.g. eu-west-1',
    instance_id: 'ID of the virtual machine',
    vpc_id: 'ID of the private network',
  },
  entities: [
    {
      name: 'instance',
      gloss: 'a virtual machine',
      where: 'in a region',
      scope: 'region',
      fields:
        'image_id!:Machine image to boot|instance_type!:Size, e.g. m5.large|subnet_id:Subnet to place it in|key_name:SSH key pair|tags[]:key=value tags',
      verbs: 'list get create update delete count search',
    },
    {
      name: 'volume',
      gloss: 'a block storage disk attached to a virtual machine',
      where: 'in a region',
      scope: 'region',
      fields: 'size_gb#!:Size in GiB|volume_type=gp3,io2,st1:Disk type|availability_zone!:Zone',
      verbs: 'list get create update delete',
    },
    {
      name: 'snapshot',
      gloss: 'a point-in-time backup of a disk',
      where: 'in a region',
      scope: 'region',
      fields: 'volume_id!:Disk to back up|description:Why it was taken',
      verbs: 'list get create delete duplicate',
    },
    {
      name: 'machine_image',
      gloss: 'a template disk to boot virtual machines from',
      where: 'in a region',
      scope: 'region',
      fields: 'instance_id!|name!:Image name',
      verbs: 'list get create delete share',
    },
    {
      name: 'vpc',
      gloss: 'a private network',
      where: 'in a region',
      scope: 'region',
      fields: 'cidr_block!:Address range, e.g. 10.0.0.0/16|name:Network name',
      verbs: 'list get create delete',
    },
    {
      name: 'subnet',
      gloss: 'an address range inside a private network',
      where: 'in a network',
      scope: 'vpc_id',
      fields: 'cidr_block!:Address range|availability_zone:Zone',
      verbs: 'list get create delete',
    },
    {
      name: 'security_group',
      gloss: 'a firewall for virtual machines',
      where: 'in a network',
      scope: 'vpc_id',
      fields: 'name!:Group name|description:Purpose',
      verbs: 'list get create update delete',
    },
    {
      name: 'load_balancer',
      gloss: 'a managed load balancer in front of a set of machines',
      where: 'in a region',
      scope: 'region',
      fields: 'name!:Name|type=application,network:Layer 7 or layer 4|subnets[]!:Subnets it serves',
      verbs: 'list get create update delete',
    },
    {
      name: 'key_pair',
      gloss: 'an SSH key for logging in to virtual machines',
      where: 'in a region',
      scope: 'region',
      fields: 'name!:Key name|public_key:Import this public key instead of generating one',
      verbs: 'list create delete',
    },
    {
      name: 'iam_role',
      gloss: 'a set of permissions that machines or services can assume',
      fields: 'name!:Role name|trust_policy!:Who may assume it, JSON|policies[]:Attached policy ARNs',
      verbs: 'list get create update delete',
    },
    {
      name: 'elastic_ip',
      gloss: 'a fixed public IP address',
      where: 'in a region',
      scope: 'region',
      fields: 'instance_id',
      verbs: 'list create delete',
    },
    {
      name: 'autoscaling_group',
      gloss: 'a group of identical machines that grows and shrinks with load',
      where: 'in a region',
      scope: 'region',
      fields:
        'name!:Group name|min_size#!:Fewest machines|max_size#!:Most machines|launch_template!:Template for new machines',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    { name: 'start_instance', description: 'Boot a stopped virtual machine.', params: 'instance_id!' },
    {
      name: 'stop_instance',
      description: 'Shut down a virtual machine; its disks are kept.',
      params: 'instance_id!|force^:Power off without a clean shutdown',
    },
    { name: 'reboot_instance', description: 'Restart a virtual machine.', params: 'instance_id!' },
    {
      name: 'resize_instance',
      description: 'Change the size of a virtual machine (it must be stopped).',
      params: 'instance_id!|instance_type!:New size',
    },
    {
      name: 'get_console_output',
      description: 'The serial console output of a machine, useful when it does not boot.',
      params: 'instance_id!',
    },
    {
      name: 'attach_volume',
      description: 'Connect a disk to a virtual machine.',
      params: 'volume_id!:Disk|instance_id!|device!:Device name, e.g. /dev/sdf',
    },
    {
      name: 'detach_volume',
      description: 'Disconnect a disk from a virtual machine.',
      params: 'volume_id!:Disk|force^:Even if in use',
    },
    {
      name: 'authorize_ingress',
      description: 'Open a port to an address range in a firewall group.',
      params:
        'security_group_id!:Firewall group|protocol=tcp,udp,icmp:Protocol|port#!:Port|cidr!:Allowed source range',
    },
    {
      name: 'revoke_ingress',
      description: 'Close a previously opened port in a firewall group.',
      params:
        'security_group_id!:Firewall group|protocol=tcp,udp,icmp:Protocol|port#!:Port|cidr!:Source range',
    },
    {
      name: 'get_cost_breakdown',
      description: 'Spend per service, region and tag for a month.',
      params: 'month!:Month, YYYY-MM|group_by=service,region,tag:Grouping',
    },
    { name: 'list_regions', description: 'Regions and availability zones you can use.', params: '' },
    {
      name: 'get_quota',
      description: 'Your limits (vCPUs, IPs, disks) in a region and how much is used.',
      params: 'region!',
    },
    {
      name: 'list_instance_types',
      description: 'Machine sizes with their vCPUs, memory and hourly price.',
      params: 'region!',
    },
  ],
};

const dns: ServiceSpec = {
  name: 'dns',
  params: { zone_id: 'ID of the DNS zone', domain: 'Domain name, e.g. example.com' },
  entities: [
    {
      name: 'zone',
      gloss: 'the DNS records of one domain',
      fields: 'domain!|type=primary,secondary:Zone type|comment:Note',
      verbs: 'list get create update delete export count',
    },
    {
      name: 'record',
      gloss: 'a DNS entry such as A, CNAME, MX or TXT',
      where: 'in a zone',
      scope: 'zone_id',
      fields:
        'type!=A,AAAA,CNAME,MX,TXT,NS,SRV,CAA:Record type|name!:Host name, @ for the apex|content!:Value, e.g. an IP|ttl#:Time to live in seconds|proxied^:Send traffic through the CDN',
      verbs: 'list get create update delete search bulk export history',
    },
    {
      name: 'domain_registration',
      gloss: 'a domain you registered through this provider',
      fields: 'domain!|years#:Registration period|auto_renew^:Renew automatically',
      verbs: 'list get update',
    },
    {
      name: 'certificate',
      gloss: 'a TLS certificate for HTTPS',
      where: 'for a zone',
      scope: 'zone_id',
      fields: 'hosts[]!:Host names it covers|validity_days#:Lifetime',
      verbs: 'list get create delete',
    },
    {
      name: 'redirect_rule',
      gloss: 'a rule that sends requests for one URL to another',
      where: 'in a zone',
      scope: 'zone_id',
      fields:
        'source_url!:URL pattern to match|target_url!:Where to send it|status_code=301,302,307,308:Redirect status',
      verbs: 'list get create update delete',
    },
    {
      name: 'firewall_rule',
      gloss: 'a rule that blocks or challenges requests to a zone',
      where: 'in a zone',
      scope: 'zone_id',
      fields:
        'expression!:Match expression, e.g. ip.src in {1.2.3.4}|action!=block,challenge,allow,log:What to do|description:Why',
      verbs: 'list get create update delete',
    },
    {
      name: 'page_rule',
      gloss: 'per-URL cache and security settings',
      where: 'in a zone',
      scope: 'zone_id',
      fields: 'target!:URL pattern|actions[]!:Settings to apply as JSON|priority#:Order',
      verbs: 'list get create update delete',
    },
    {
      name: 'load_balancer_pool',
      gloss: 'a set of origin servers health-checked and balanced by DNS',
      fields: 'name!:Pool name|origins[]!:Origin addresses|monitor_id:Health check',
      verbs: 'list get create update delete',
    },
    {
      name: 'health_check',
      gloss: 'a probe that marks origins up or down',
      fields:
        'name!:Check name|path!:URL path to probe|interval#:Seconds between probes|expected_codes:Healthy status codes',
      verbs: 'list get create update delete',
    },
    {
      name: 'worker_route',
      gloss: 'a URL pattern that runs an edge script',
      where: 'in a zone',
      scope: 'zone_id',
      fields: 'pattern!:URL pattern|script!:Edge script name',
      verbs: 'list create update delete',
    },
  ],
  actions: [
    {
      name: 'check_domain_availability',
      description: 'Find out whether a domain name can still be registered and its price.',
      params: 'domain!',
    },
    {
      name: 'register_domain',
      description: 'Buy a domain name.',
      params: 'domain!|years#:Registration period|contact_id!:Registrant contact',
    },
    {
      name: 'transfer_domain',
      description: 'Move a domain from another registrar using its auth code.',
      params: 'domain!|auth_code!:Transfer code from the old registrar',
    },
    {
      name: 'purge_cache',
      description: 'Drop cached copies of some URLs or everything from the CDN.',
      params: 'zone_id!|urls[]:Only these URLs|everything^:Purge all files',
    },
    {
      name: 'lookup_dns',
      description: 'Resolve a name from the public internet, like dig.',
      params: 'name!:Name to resolve|type=A,AAAA,CNAME,MX,TXT,NS:Record type',
    },
    {
      name: 'check_propagation',
      description:
        'Ask resolvers around the world what they answer for a record, to see if a change has spread.',
      params: 'name!:Name|type=A,AAAA,CNAME,MX,TXT:Record type',
    },
    {
      name: 'enable_dnssec',
      description: 'Turn on DNSSEC signing for a zone and get the DS record for the registrar.',
      params: 'zone_id!',
    },
    {
      name: 'import_zone_file',
      description: 'Create records from a BIND zone file.',
      params: 'zone_id!|zone_file!:Zone file text',
    },
    {
      name: 'get_zone_analytics',
      description: 'Requests, bandwidth, cache hit ratio and threats for a zone.',
      params: 'zone_id!|since:Start of the period',
    },
    {
      name: 'set_ssl_mode',
      description: 'Choose how the CDN talks to your origin: off, flexible, full or strict.',
      params: 'zone_id!|mode!=off,flexible,full,strict:TLS mode',
    },
    {
      name: 'renew_certificate',
      description: 'Issue a fresh TLS certificate before the current one expires.',
      params: 'certificate_id!:Certificate to renew',
    },
    {
      name: 'set_nameservers',
      description: 'Point a registered domain at different name servers.',
      params: 'domain!|nameservers[]!:Name server host names',
    },
    {
      name: 'whois_lookup',
      description: 'Who owns a domain, its registrar and expiry date.',
      params: 'domain!',
    },
  ],
};

export const OPS_SERVICES: ServiceSpec[] = [incidents, errors, registry, cluster, cloud, dns];

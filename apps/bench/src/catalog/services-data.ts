/** Generated services, part 3: secrets, storage, databases, flags and product analytics. */
import type { ServiceSpec } from './model.js';

const vault: ServiceSpec = {
  name: 'vault',
  params: {
    mount: 'Secrets engine mount path, e.g. secret',
    path: 'Secret path under the mount, e.g. apps/web/db',
  },
  entities: [
    {
      name: 'secret',
      gloss: 'a versioned set of key-value credentials',
      where: 'under a mount',
      scope: 'mount',
      fields: 'path!|data!:Keys and values as JSON|cas#:Only write if the current version is this',
      verbs: 'list get create update delete history search count watch export',
    },
    {
      name: 'policy',
      plural: 'policies',
      gloss: 'rules saying which paths a token may read or write',
      fields: 'name!:Policy name|rules!:Policy in HCL',
      verbs: 'list get create update delete history',
    },
    {
      name: 'auth_method',
      gloss: 'a way clients log in, such as tokens, OIDC or Kubernetes service accounts',
      fields: 'path!:Mount path|type!=token,oidc,kubernetes,approle,ldap,userpass:Method|description:Purpose',
      verbs: 'list get create update delete',
    },
    {
      name: 'secrets_engine',
      gloss: 'a mounted backend that stores or generates secrets',
      fields: 'path!:Mount path|type!=kv,database,pki,transit,aws:Engine type|description:Purpose',
      verbs: 'list get create update delete',
    },
    {
      name: 'token',
      gloss: 'a credential that carries policies and a lifetime',
      fields:
        'policies[]!:Policies attached|ttl:Lifetime, e.g. 1h|renewable^:Can be renewed|display_name:Label',
      verbs: 'list get create delete',
    },
    {
      name: 'approle',
      gloss: 'a login role for machines and CI using a role ID and secret ID',
      fields:
        'role_name!:Role name|token_policies[]!:Policies of issued tokens|secret_id_ttl:Secret ID lifetime',
      verbs: 'list get create update delete',
    },
    {
      name: 'database_role',
      gloss: 'a template for dynamic database credentials',
      fields:
        'name!:Role name|db_name!:Database connection|creation_statements[]!:SQL that creates the user|default_ttl:Credential lifetime',
      verbs: 'list get create update delete',
    },
    {
      name: 'pki_role',
      gloss: 'which certificates the internal CA may issue',
      fields: 'name!:Role name|allowed_domains[]!:Domains certificates may cover|max_ttl:Longest lifetime',
      verbs: 'list get create update delete',
    },
    {
      name: 'transit_key',
      gloss: 'an encryption key that never leaves the vault',
      fields: 'name!:Key name|type=aes256-gcm96,rsa-4096,ed25519:Algorithm|exportable^:Allow export',
      verbs: 'list get create delete',
    },
    {
      name: 'audit_device',
      gloss: 'a log destination that records every request',
      fields: 'path!:Mount path|type!=file,syslog,socket:Destination type|options:Settings as JSON',
      verbs: 'list create delete',
    },
    {
      name: 'lease',
      gloss: 'the lifetime of a dynamic secret',
      fields: 'lease_id!:ID of the lease',
      verbs: 'list get',
    },
  ],
  actions: [
    {
      name: 'read_secret_version',
      description: 'Read an older version of a secret.',
      params: 'mount!|path!|version#!:Version number',
    },
    {
      name: 'rollback_secret',
      description: 'Make an earlier version of a secret the current one.',
      params: 'mount!|path!|version#!:Version to restore',
    },
    {
      name: 'destroy_secret_versions',
      description: 'Wipe versions of a secret so they can never be recovered.',
      params: 'mount!|path!|versions[]!:Versions to destroy',
    },
    {
      name: 'generate_database_credentials',
      description: 'Create a short-lived database user and password from a role.',
      params: 'role!:Database role',
    },
    {
      name: 'issue_certificate',
      description: 'Get a TLS certificate and private key signed by the internal CA.',
      params: 'role!:PKI role|common_name!:Host name|alt_names[]:Other names|ttl:Lifetime',
    },
    {
      name: 'revoke_certificate',
      description: 'Revoke a certificate issued by the internal CA.',
      params: 'serial_number!:Certificate serial',
    },
    {
      name: 'encrypt_data',
      description: 'Encrypt plaintext with a transit key; the key never leaves the vault.',
      params: 'key!:Transit key|plaintext!:Base64 data',
    },
    {
      name: 'decrypt_data',
      description: 'Decrypt ciphertext produced by a transit key.',
      params: 'key!:Transit key|ciphertext!:Ciphertext',
    },
    {
      name: 'rotate_transit_key',
      description: 'Create a new version of an encryption key; old data stays decryptable.',
      params: 'key!:Transit key',
    },
    {
      name: 'renew_lease',
      description: 'Extend the lifetime of a dynamic secret or token.',
      params: 'lease_id!:Lease|increment:Extra time, e.g. 1h',
    },
    {
      name: 'revoke_lease',
      description: 'End a dynamic secret now, e.g. after a leak.',
      params: 'lease_id!:Lease',
    },
    {
      name: 'revoke_token',
      description: 'Invalidate a token and every token created from it.',
      params: 'token_accessor!:Accessor of the token',
    },
    {
      name: 'lookup_self',
      description: 'Details of the token this server uses: policies, expiry, metadata.',
      params: '',
    },
    {
      name: 'seal_status',
      description: 'Whether the vault is sealed and how many unseal keys were given.',
      params: '',
    },
    { name: 'unseal', description: 'Provide one unseal key share.', params: 'key!:Unseal key share' },
    {
      name: 'generate_password',
      description: 'Produce a random password that meets a password policy.',
      params: 'policy:Password policy name|length#:Length',
    },
  ],
};

const storage: ServiceSpec = {
  name: 'storage',
  params: { bucket: 'Bucket name', key: 'Object key (path inside the bucket)' },
  entities: [
    {
      name: 'bucket',
      gloss: 'a top-level container for stored objects',
      fields:
        'name!:Globally unique bucket name|region!:Region|versioning^:Keep old versions of objects|public_access_block^:Block all public access',
      verbs: 'list get create update delete count permissions export',
    },
    {
      name: 'object',
      gloss: 'a stored file and its metadata',
      where: 'in a bucket',
      scope: 'bucket',
      fields:
        'key!|content_base64!:Contents, base64|content_type:MIME type|metadata:User metadata as JSON|storage_class=standard,infrequent,archive:Storage tier',
      verbs: 'list get create delete search count history duplicate',
    },
    {
      name: 'lifecycle_rule',
      gloss: 'a rule that moves or deletes objects as they age',
      where: 'of a bucket',
      scope: 'bucket',
      fields:
        'prefix:Only keys starting with this|transition_days#:Move to a colder tier after N days|expiration_days#:Delete after N days',
      verbs: 'list get create update delete',
    },
    {
      name: 'bucket_policy',
      plural: 'bucket_policies',
      gloss: 'a JSON document granting access to a bucket',
      where: 'of a bucket',
      scope: 'bucket',
      fields: 'policy!:Policy document as JSON',
      verbs: 'get create delete',
    },
    {
      name: 'cors_rule',
      gloss: 'which web origins may read a bucket from the browser',
      where: 'of a bucket',
      scope: 'bucket',
      fields: 'allowed_origins[]!:Origins|allowed_methods[]!:HTTP methods|max_age_seconds#:Preflight cache',
      verbs: 'list create delete',
    },
    {
      name: 'replication_rule',
      gloss: 'a rule that copies new objects to a bucket in another region',
      where: 'of a bucket',
      scope: 'bucket',
      fields: 'destination_bucket!:Target bucket|prefix:Only keys starting with this',
      verbs: 'list get create delete',
    },
    {
      name: 'access_key',
      gloss: 'an access key ID and secret for programmatic access',
      fields: 'description!:Who uses it|read_only^:Allow reads only',
      verbs: 'list create delete',
    },
    {
      name: 'event_notification',
      gloss: 'a message sent to a queue or function when objects change',
      where: 'of a bucket',
      scope: 'bucket',
      fields: 'events[]!:e.g. object_created|target!:Queue or function',
      verbs: 'list create delete',
    },
    {
      name: 'multipart_upload',
      gloss: 'a large upload sent in parts',
      where: 'in a bucket',
      scope: 'bucket',
      fields: 'key!',
      verbs: 'list create delete',
    },
    {
      name: 'inventory_report',
      gloss: 'a scheduled listing of every object in a bucket',
      where: 'of a bucket',
      scope: 'bucket',
      fields: 'frequency=daily,weekly:How often|destination!:Bucket that receives the report',
      verbs: 'list get create delete',
    },
  ],
  actions: [
    {
      name: 'upload_file',
      description: 'Store a local file or text in a bucket under a key.',
      params: 'bucket!|key!|content!:File contents|content_type:MIME type',
    },
    {
      name: 'download_object',
      description: 'Get the bytes of a stored object.',
      params: 'bucket!|key!|range:Byte range, e.g. bytes=0-1023',
    },
    {
      name: 'get_presigned_url',
      description: 'A temporary link anyone can use to download or upload an object without credentials.',
      params: 'bucket!|key!|method=GET,PUT:What the link allows|expires_seconds#:Validity',
    },
    {
      name: 'copy_object',
      description: 'Duplicate an object to another key or bucket on the server side.',
      params: 'bucket!|key!|target_bucket!:Destination bucket|target_key!:Destination key',
    },
    {
      name: 'move_object',
      description: 'Rename an object or move it to another bucket.',
      params: 'bucket!|key!|target_bucket!:Destination bucket|target_key!:Destination key',
    },
    {
      name: 'head_object',
      description: 'Size, type, checksum and metadata of an object without downloading it.',
      params: 'bucket!|key!',
    },
    {
      name: 'delete_objects_by_prefix',
      description: 'Delete every object whose key starts with a prefix.',
      params: 'bucket!|prefix!:Key prefix',
    },
    {
      name: 'restore_archived_object',
      description: 'Bring an object back from the archive tier so it can be read.',
      params: 'bucket!|key!|days#:How long to keep the restored copy',
    },
    {
      name: 'set_object_tags',
      description: 'Replace the tags of an object.',
      params: 'bucket!|key!|tags!:Tags as JSON',
    },
    {
      name: 'get_bucket_size',
      description: 'Total bytes and object count of a bucket, by storage class.',
      params: 'bucket!',
    },
    {
      name: 'enable_static_website',
      description: 'Serve a bucket as a static website with an index and error page.',
      params: 'bucket!|index_document!:e.g. index.html|error_document:e.g. 404.html',
    },
    {
      name: 'sync_directory',
      description: 'Make a prefix in a bucket mirror a directory, uploading changed files only.',
      params:
        'bucket!|prefix!:Target prefix|files!:Files and their contents as JSON|delete_extra^:Remove objects not in the directory',
    },
  ],
};

const dbadmin: ServiceSpec = {
  name: 'dbadmin',
  params: {
    instance: 'Database instance name',
    database: 'Database name',
    table: 'Table name, optionally schema-qualified',
  },
  entities: [
    {
      name: 'instance',
      gloss: 'a managed database server',
      fields:
        'name!:Instance name|engine!=postgres,mysql,sqlserver:Database engine|version:Engine version|tier!:Machine size|storage_gb#:Disk size',
      verbs: 'list get create update delete count',
    },
    {
      name: 'database',
      gloss: 'a database on an instance',
      where: 'on an instance',
      scope: 'instance',
      fields: 'name!:Database name|charset:Character set|collation:Collation',
      verbs: 'list get create delete',
    },
    {
      name: 'table',
      gloss: 'a table and its columns',
      where: 'in a database',
      scope: 'instance database',
      fields: 'name!:Table name|columns[]!:Column definitions, e.g. id bigint primary key',
      verbs: 'list get create delete count',
    },
    {
      name: 'index',
      plural: 'indexes',
      gloss: 'a structure that speeds up lookups on columns',
      where: 'in a database',
      scope: 'instance database',
      fields:
        'table!|columns[]!:Indexed columns|unique^:Enforce uniqueness|method=btree,hash,gin,gist:Index type',
      verbs: 'list get create delete',
    },
    {
      name: 'user',
      gloss: 'a database login',
      where: 'on an instance',
      scope: 'instance',
      fields: 'username!:Login name|password!:Password|host:Allowed host',
      verbs: 'list get create update delete',
    },
    {
      name: 'role',
      gloss: 'a named set of database privileges',
      where: 'on an instance',
      scope: 'instance',
      fields: 'name!:Role name|privileges[]!:e.g. SELECT ON ALL TABLES',
      verbs: 'list get create update delete',
    },
    {
      name: 'backup',
      gloss: 'a full copy of an instance that can be restored',
      where: 'of an instance',
      scope: 'instance',
      fields: 'description:Why it was taken',
      verbs: 'list get create delete export',
    },
    {
      name: 'read_replica',
      gloss: 'a read-only copy of an instance that follows its changes',
      where: 'of an instance',
      scope: 'instance',
      fields: 'name!:Replica name|region:Region',
      verbs: 'list get create delete',
    },
    {
      name: 'migration',
      gloss: 'a versioned schema change',
      where: 'for a database',
      scope: 'instance database',
      fields: 'name!:Migration name|up_sql!:SQL to apply|down_sql:SQL to undo',
      verbs: 'list get create',
    },
    {
      name: 'parameter_group',
      gloss: 'a set of engine settings shared by instances',
      fields: 'name!:Group name|parameters!:Settings as JSON',
      verbs: 'list get create update delete duplicate',
    },
    {
      name: 'saved_query',
      plural: 'saved_queries',
      gloss: 'a stored SQL statement',
      fields: 'name!:Query name|sql!:SQL text|database',
      verbs: 'list get create update delete share',
    },
    {
      name: 'view',
      gloss: 'a named query that behaves like a table',
      where: 'in a database',
      scope: 'instance database',
      fields: 'name!:View name|definition!:SELECT statement',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'run_query',
      description: 'Execute SQL and return the rows (read-only unless allow_writes is set).',
      params: 'instance!|database!|sql!:SQL to run|allow_writes^:Permit INSERT, UPDATE, DELETE and DDL',
    },
    {
      name: 'explain_query',
      description: 'Show the execution plan the planner picks for a statement, with costs.',
      params: 'instance!|database!|sql!:Statement|analyze^:Actually run it and report timings',
    },
    {
      name: 'describe_table',
      description: 'Columns, types, defaults, constraints and indexes of a table.',
      params: 'instance!|database!|table!',
    },
    {
      name: 'get_slow_queries',
      description: 'Statements with the highest total or mean execution time.',
      params: 'instance!|limit#:How many|order_by=total_time,mean_time,calls:Ranking',
    },
    {
      name: 'list_active_connections',
      description: 'Sessions connected right now, their state and the query they run.',
      params: 'instance!',
    },
    {
      name: 'kill_connection',
      description: 'Terminate a database session, e.g. one holding a lock.',
      params: 'instance!|pid#!:Backend process ID',
    },
    {
      name: 'list_locks',
      description: 'Locks held and waited for, to find what blocks a query.',
      params: 'instance!|database',
    },
    {
      name: 'restore_backup',
      description: 'Restore an instance from a backup into a new instance.',
      params: 'backup_id!:Backup|target_instance!:Name of the new instance',
    },
    {
      name: 'restore_to_point_in_time',
      description: 'Create a copy of an instance as it was at a moment in the past.',
      params: 'instance!|timestamp!:Moment to recover|target_instance!:Name of the new instance',
    },
    {
      name: 'apply_migrations',
      description: 'Run pending schema migrations in order.',
      params: 'instance!|database!|dry_run^:Only print the SQL',
    },
    {
      name: 'rollback_migration',
      description: 'Undo the most recent schema migration.',
      params: 'instance!|database!',
    },
    {
      name: 'get_table_sizes',
      description: 'Disk used by each table and its indexes, largest first.',
      params: 'instance!|database!',
    },
    {
      name: 'vacuum_table',
      description: 'Reclaim space and update planner statistics for a table.',
      params: 'instance!|database!|table!|full^:Rewrite the whole table',
    },
    {
      name: 'get_replication_lag',
      description: 'How far each read replica is behind its primary.',
      params: 'instance!',
    },
    { name: 'failover_instance', description: 'Promote the standby to primary.', params: 'instance!' },
    {
      name: 'generate_erd',
      description: 'Draw the tables and foreign keys of a database as a diagram.',
      params: 'instance!|database!|format=mermaid,svg:Output format',
    },
  ],
};

const flags: ServiceSpec = {
  name: 'flags',
  params: {
    project_key: 'Project key',
    environment_key: 'Environment key, e.g. production',
    flag_key: 'Feature flag key, e.g. new-checkout',
  },
  entities: [
    {
      name: 'feature_flag',
      gloss: 'a switch that turns a feature on or off without deploying',
      where: 'in a project',
      scope: 'project_key',
      fields:
        'key!:Flag key|name!:Human-readable name|description:What it gates|variations[]:Possible values as JSON|temporary^:Meant to be removed later|tags[]:Tags',
      verbs: 'list get create update delete search archive restore history count duplicate export',
    },
    {
      name: 'project',
      gloss: 'a set of flags shared by one product',
      fields: 'key!:Project key|name!:Project name',
      verbs: 'list get create update delete',
    },
    {
      name: 'environment',
      gloss: 'an isolated set of flag states such as staging or production',
      where: 'in a project',
      scope: 'project_key',
      fields: 'key!:Environment key|name!:Name|color:Hex color|require_approval^:Changes need approval',
      verbs: 'list get create update delete',
    },
    {
      name: 'segment',
      gloss: 'a reusable group of users to target, defined by rules or a list',
      where: 'in an environment',
      scope: 'project_key environment_key',
      fields: 'key!:Segment key|name!:Name|rules:Targeting rules as JSON|included[]:User keys always in it',
      verbs: 'list get create update delete',
    },
    {
      name: 'experiment',
      gloss: 'an A/B test that compares metrics between flag variations',
      where: 'in an environment',
      scope: 'project_key environment_key',
      fields: 'name!:Experiment name|flag_key!|metric_keys[]!:Metrics to compare|hypothesis:What you expect',
      verbs: 'list get create update archive',
    },
    {
      name: 'metric',
      gloss: 'a measured user action used by experiments',
      where: 'in a project',
      scope: 'project_key',
      fields: 'key!:Metric key|kind=click,conversion,numeric:What it counts|event_key!:Event that feeds it',
      verbs: 'list get create update delete',
    },
    {
      name: 'approval_request',
      gloss: 'a proposed flag change waiting for review',
      where: 'in an environment',
      scope: 'project_key environment_key',
      fields: 'flag_key!|instructions!:The change as JSON|comment:Why',
      verbs: 'list get create delete',
    },
    {
      name: 'scheduled_change',
      gloss: 'a flag change that applies at a set time',
      where: 'on a flag',
      scope: 'project_key flag_key',
      fields: 'execution_date!:When to apply it|instructions!:The change as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'sdk_key',
      gloss: 'a key applications use to fetch flag values',
      where: 'for an environment',
      scope: 'project_key environment_key',
      fields: 'name!:Label',
      verbs: 'list create delete',
    },
    {
      name: 'webhook',
      gloss: 'a URL called when flags change',
      fields: 'url!:Endpoint|events[]:Which changes',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'toggle_flag',
      description: 'Turn a feature flag on or off in one environment.',
      params: 'project_key!|environment_key!|flag_key!|on^!:Whether the flag serves its on variation',
    },
    {
      name: 'set_rollout_percentage',
      description: 'Serve a variation to a percentage of users, for a gradual release.',
      params: 'project_key!|environment_key!|flag_key!|percentage#!:Share of users, 0-100',
    },
    {
      name: 'add_user_targets',
      description: 'Serve a specific variation to named users.',
      params: 'project_key!|environment_key!|flag_key!|user_keys[]!:Users|variation!:Variation to serve',
    },
    {
      name: 'evaluate_flag',
      description: 'Which variation a given user would get, and why.',
      params: 'project_key!|environment_key!|flag_key!|user!:User attributes as JSON',
    },
    {
      name: 'copy_flag_settings',
      description: "Copy a flag's targeting from one environment to another, e.g. staging to production.",
      params: 'project_key!|flag_key!|source_environment!:Copy from|target_environment!:Copy to',
    },
    {
      name: 'list_stale_flags',
      description: 'Flags that serve one variation to everyone and can probably be removed from code.',
      params: 'project_key!|days#:Unchanged for this long',
    },
    {
      name: 'find_flag_code_references',
      description: 'Where in the codebase a flag key is used.',
      params: 'project_key!|flag_key!',
    },
    {
      name: 'get_experiment_results',
      description: 'Conversion per variation with confidence intervals and the probable winner.',
      params: 'project_key!|environment_key!|experiment_id!:Experiment',
    },
    {
      name: 'approve_change_request',
      description: 'Approve a pending flag change so it can be applied.',
      params: 'approval_request_id!:Request|comment:Note',
    },
    {
      name: 'get_flag_evaluation_counts',
      description: 'How many times each variation of a flag was served per day.',
      params: 'project_key!|environment_key!|flag_key!|days#:Period',
    },
    {
      name: 'kill_switch',
      description: 'Turn a flag off in every environment at once, in an emergency.',
      params: 'project_key!|flag_key!',
    },
  ],
};

const analytics: ServiceSpec = {
  name: 'analytics',
  params: {
    project_id: 'Analytics project ID',
    from_date: 'First day (YYYY-MM-DD)',
    to_date: 'Last day (YYYY-MM-DD)',
  },
  entities: [
    {
      name: 'report',
      gloss: 'a saved chart of events, funnels or retention',
      where: 'in a project',
      scope: 'project_id',
      fields: 'name!:Report name|query!:Report definition as JSON|description:What it answers',
      verbs: 'list get create update delete duplicate share export search',
    },
    {
      name: 'dashboard',
      gloss: 'a board of saved reports',
      where: 'in a project',
      scope: 'project_id',
      fields: 'title!:Dashboard title|report_ids[]:Reports on it|description:What it tracks',
      verbs: 'list get create update delete duplicate share',
    },
    {
      name: 'cohort',
      gloss: 'a saved group of users who share a behaviour or property',
      where: 'in a project',
      scope: 'project_id',
      fields: 'name!:Cohort name|definition!:Rules as JSON',
      verbs: 'list get create update delete export count',
    },
    {
      name: 'funnel',
      gloss: 'a sequence of steps users take, with drop-off between them',
      where: 'in a project',
      scope: 'project_id',
      fields: 'name!:Funnel name|steps[]!:Event names in order|window_days#:Days allowed to finish',
      verbs: 'list get create update delete',
    },
    {
      name: 'event_definition',
      gloss: 'the documented meaning and properties of a tracked event',
      where: 'in a project',
      scope: 'project_id',
      fields: 'name!:Event name|description:What triggers it|owner:Who owns it|verified^:Approved for use',
      verbs: 'list get update delete search',
    },
    {
      name: 'annotation',
      gloss: 'a note on a date shown on charts, such as a launch',
      where: 'in a project',
      scope: 'project_id',
      fields: 'date!:Date|text!:Note',
      verbs: 'list create update delete',
    },
    {
      name: 'alert',
      gloss: 'a notification when a metric moves unexpectedly',
      where: 'in a project',
      scope: 'project_id',
      fields: 'name!:Alert name|report_id!:Report watched|threshold!:Condition, e.g. drops 20%',
      verbs: 'list get create update delete',
    },
    {
      name: 'data_export',
      gloss: 'a scheduled copy of raw events to a warehouse',
      where: 'in a project',
      scope: 'project_id',
      fields: 'destination!=bigquery,snowflake,s3:Where to|schedule=hourly,daily:How often',
      verbs: 'list get create delete',
    },
    {
      name: 'user_profile',
      gloss: 'the properties and event history of one end user',
      where: 'in a project',
      scope: 'project_id',
      fields: 'distinct_id!:User identifier',
      verbs: 'get delete search',
    },
  ],
  actions: [
    {
      name: 'query_events',
      description: 'Count events over time, split by a property.',
      params: 'project_id!|event!:Event name|from_date!|to_date!|breakdown:Property to split by',
    },
    {
      name: 'query_funnel',
      description: 'Conversion and drop-off between steps for a date range.',
      params: 'project_id!|funnel_id!:Funnel|from_date!|to_date!',
    },
    {
      name: 'query_retention',
      description: 'What share of users come back on later days or weeks.',
      params:
        'project_id!|start_event!:First action|return_event!:Coming back means doing this|from_date!|to_date!',
    },
    {
      name: 'get_active_users',
      description: 'Daily, weekly and monthly active users.',
      params: 'project_id!|from_date!|to_date!',
    },
    {
      name: 'track_event',
      description: 'Record an event for a user from the server side.',
      params: 'project_id!|event!:Event name|distinct_id!:User|properties:Event properties as JSON',
    },
    {
      name: 'identify_user',
      description: 'Set properties on a user profile, such as plan or company.',
      params: 'project_id!|distinct_id!:User|properties!:Properties as JSON',
    },
    {
      name: 'run_sql_insight',
      description: 'Run a SQL query over the raw event tables.',
      params: 'project_id!|sql!:SQL',
    },
    {
      name: 'get_top_pages',
      description: 'The most viewed pages and screens with average time spent.',
      params: 'project_id!|from_date!|to_date!|limit#:How many',
    },
    {
      name: 'get_traffic_sources',
      description: 'Where visitors came from: referrers, campaigns, search engines.',
      params: 'project_id!|from_date!|to_date!',
    },
    {
      name: 'compare_periods',
      description: 'Compare a metric between this period and the previous one.',
      params: 'project_id!|event!:Event|from_date!|to_date!',
    },
    {
      name: 'delete_user_data',
      description: 'Erase all data about a user to honour a privacy request.',
      params: 'project_id!|distinct_id!:User',
    },
    {
      name: 'list_properties',
      description: 'The event and user properties seen in a project and their types.',
      params: 'project_id!',
    },
  ],
};

export const DATA_SERVICES: ServiceSpec[] = [vault, storage, dbadmin, flags, analytics];

/** Generated services, part 4: communication and office work. */
import type { ServiceSpec } from './model.js';

const chat: ServiceSpec = {
  name: 'chat',
  params: {
    channel_id: 'ID of the channel, e.g. C024BE91L',
    ts: 'Timestamp ID of the message',
    user_id: 'ID of the user',
  },
  entities: [
    {
      name: 'channel',
      gloss: 'a conversation space for a team or topic',
      fields:
        'name!:Channel name without #|is_private^:Invite-only|topic:Channel topic|purpose:What the channel is for',
      verbs: 'list get create update archive restore search count export history',
    },
    {
      name: 'message',
      gloss: 'a post in a channel or direct conversation',
      where: 'in a channel',
      scope: 'channel_id',
      fields:
        'text!:Message text with mrkdwn|thread_ts:Reply in this thread|blocks:Rich layout blocks as JSON',
      verbs: 'list get create update delete search count export',
    },
    {
      name: 'user',
      gloss: 'a member of the workspace',
      fields: 'email!:Email address|real_name:Full name|title:Job title',
      verbs: 'list get update search count',
    },
    {
      name: 'user_group',
      gloss: 'a named group that can be @mentioned, such as @oncall',
      fields: 'name!:Group name|handle!:Mention handle|user_ids[]:Members',
      verbs: 'list get create update archive restore',
    },
    {
      name: 'reminder',
      gloss: 'a message the bot sends you later',
      fields: 'text!:What to remind about|time!:When, e.g. in 2 hours or tomorrow 9am|user_id',
      verbs: 'list get create delete',
    },
    {
      name: 'file',
      gloss: 'an uploaded file shared in conversations',
      fields: 'filename!:File name|content!:File contents|channels[]:Channels to share it in|title:Title',
      verbs: 'list get create delete search share',
    },
    {
      name: 'bookmark',
      gloss: 'a link pinned to a channel header',
      where: 'in a channel',
      scope: 'channel_id',
      fields: 'title!:Bookmark title|link!:URL',
      verbs: 'list create update delete',
    },
    {
      name: 'scheduled_message',
      gloss: 'a message queued to post at a later time',
      where: 'in a channel',
      scope: 'channel_id',
      fields: 'text!:Message text|post_at!:When to post',
      verbs: 'list create delete',
    },
    {
      name: 'custom_emoji',
      plural: 'custom_emoji',
      gloss: 'an uploaded emoji image',
      fields: 'name!:Emoji name|image_url!:Image URL',
      verbs: 'list create delete',
    },
    {
      name: 'workflow',
      gloss: 'an automation that runs steps when something happens in chat',
      fields: 'name!:Workflow name|trigger!:What starts it|steps[]!:Steps as JSON',
      verbs: 'list get create update delete duplicate',
    },
    {
      name: 'canvas',
      plural: 'canvases',
      gloss: 'a shared document attached to a channel',
      fields: 'title!:Canvas title|content!:Markdown content|channel_id',
      verbs: 'list get create update delete share',
    },
  ],
  actions: [
    {
      name: 'post_message',
      description: 'Send a message to a channel, a thread or a person.',
      params: 'channel_id!|text!:Message text|thread_ts:Reply in this thread',
    },
    {
      name: 'send_direct_message',
      description: 'Message one person privately.',
      params: 'user_id!|text!:Message text',
    },
    {
      name: 'get_thread_replies',
      description: 'All replies in a message thread.',
      params: 'channel_id!|ts!',
    },
    {
      name: 'add_reaction',
      description: 'React to a message with an emoji.',
      params: 'channel_id!|ts!|emoji!:Emoji name, e.g. thumbsup',
    },
    {
      name: 'remove_reaction',
      description: 'Take back an emoji reaction.',
      params: 'channel_id!|ts!|emoji!:Emoji name',
    },
    {
      name: 'pin_message',
      description: 'Pin a message to the top of its channel.',
      params: 'channel_id!|ts!',
    },
    {
      name: 'invite_to_channel',
      description: 'Add people to a channel.',
      params: 'channel_id!|user_ids[]!:People to add',
    },
    {
      name: 'remove_from_channel',
      description: 'Kick someone out of a channel.',
      params: 'channel_id!|user_id!',
    },
    { name: 'join_channel', description: 'Join a public channel as the bot.', params: 'channel_id!' },
    {
      name: 'set_channel_topic',
      description: 'Change the topic line at the top of a channel.',
      params: 'channel_id!|topic!:New topic',
    },
    {
      name: 'set_status',
      description: 'Set your status text, emoji and expiry, e.g. in a meeting.',
      params: 'text!:Status text|emoji:Status emoji|expires_in_minutes#:Clear after',
    },
    {
      name: 'get_presence',
      description: 'Whether a person is active or away right now.',
      params: 'user_id!',
    },
    {
      name: 'lookup_user_by_email',
      description: 'Find a workspace member from their email address.',
      params: 'email!:Email address',
    },
    {
      name: 'get_unread_mentions',
      description: 'Messages that @mention you and you have not read.',
      params: 'limit#:Maximum results',
    },
    {
      name: 'summarize_channel',
      description: 'A digest of what was discussed in a channel over a period.',
      params: 'channel_id!|hours#:Look back this many hours',
    },
  ],
};

const mail: ServiceSpec = {
  name: 'mail',
  params: {
    message_id: 'ID of the email',
    thread_id: 'ID of the conversation thread',
    label_id: 'ID of the label',
  },
  entities: [
    {
      name: 'email',
      gloss: 'a message in the mailbox',
      fields:
        'to[]!:Recipients|subject!:Subject line|body!:Body, plain text or HTML|cc[]:Carbon copy|bcc[]:Blind copy|attachments[]:Attachment file IDs',
      verbs: 'list get delete search count export',
    },
    {
      name: 'draft',
      gloss: 'an unsent email being written',
      fields: 'to[]:Recipients|subject:Subject|body:Body|reply_to_message_id:Email it answers',
      verbs: 'list get create update delete',
    },
    {
      name: 'thread',
      gloss: 'a conversation of emails and replies',
      fields: 'thread_id!',
      verbs: 'list get delete search',
    },
    {
      name: 'label',
      gloss: 'a tag or folder that organises emails',
      fields: 'name!:Label name|color:Color|show_in_list^:Show in the sidebar',
      verbs: 'list get create update delete',
    },
    {
      name: 'filter',
      gloss: 'a rule that acts on incoming mail automatically',
      fields:
        'from:Match sender|subject_contains:Match subject|has_words:Match text|add_label:Label to apply|skip_inbox^:Archive it|forward_to:Forward to address',
      verbs: 'list get create delete export',
    },
    {
      name: 'signature',
      gloss: 'text appended to outgoing emails',
      fields: 'name!:Signature name|html!:Signature HTML|default^:Use by default',
      verbs: 'list get create update delete',
    },
    {
      name: 'contact',
      gloss: 'a person in the address book',
      fields: 'email!:Email address|name:Full name|phone:Phone number|company:Company',
      verbs: 'list get create update delete search export',
    },
    {
      name: 'contact_group',
      gloss: 'a mailing group in the address book',
      fields: 'name!:Group name|member_emails[]:Members',
      verbs: 'list get create update delete',
    },
    {
      name: 'alias',
      plural: 'aliases',
      gloss: 'another address that delivers to this mailbox',
      fields: 'address!:Alias address|display_name:Sender name',
      verbs: 'list create delete',
    },
    {
      name: 'delegate',
      gloss: 'someone allowed to read and send mail on your behalf',
      fields: 'email!:Delegate address',
      verbs: 'list create delete',
    },
  ],
  actions: [
    {
      name: 'send_email',
      description: 'Compose and send an email right away.',
      params:
        'to[]!:Recipients|subject!:Subject line|body!:Body|cc[]:Carbon copy|attachments[]:Attachment file IDs',
    },
    {
      name: 'reply_to_email',
      description: 'Answer an email, keeping it in the same thread.',
      params: 'message_id!|body!:Reply text|reply_all^:Reply to everyone',
    },
    {
      name: 'forward_email',
      description: 'Send an email on to other people.',
      params: 'message_id!|to[]!:Recipients|note:Text above the forwarded message',
    },
    { name: 'send_draft', description: 'Send a saved draft.', params: 'draft_id!:Draft to send' },
    {
      name: 'schedule_email',
      description: 'Queue an email to go out at a later time.',
      params: 'to[]!:Recipients|subject!:Subject|body!:Body|send_at!:When to send',
    },
    {
      name: 'mark_as_read',
      description: 'Mark emails as read or unread.',
      params: 'message_ids[]!:Emails|read^:True for read, false for unread',
    },
    {
      name: 'archive_email',
      description: 'Remove emails from the inbox without deleting them.',
      params: 'message_ids[]!:Emails',
    },
    {
      name: 'move_to_spam',
      description: 'Report emails as spam and move them out of the inbox.',
      params: 'message_ids[]!:Emails',
    },
    {
      name: 'apply_label',
      description: 'Tag emails with labels, or remove labels.',
      params: 'message_ids[]!:Emails|add_label_ids[]:Labels to add|remove_label_ids[]:Labels to remove',
    },
    {
      name: 'get_attachment',
      description: 'Download a file attached to an email.',
      params: 'message_id!|attachment_id!:Attachment',
    },
    {
      name: 'set_vacation_responder',
      description: 'Turn on an automatic out-of-office reply for a period.',
      params: 'enabled^!:On or off|subject:Reply subject|message:Reply text|start:From|end:Until',
    },
    {
      name: 'unsubscribe',
      description: 'Leave a mailing list using the unsubscribe link of one of its emails.',
      params: 'message_id!',
    },
    {
      name: 'snooze_email',
      description: 'Hide an email until later, when it comes back to the top of the inbox.',
      params: 'message_id!|until!:When it comes back',
    },
    {
      name: 'block_sender',
      description: 'Send all future mail from an address straight to spam.',
      params: 'email!:Address to block',
    },
  ],
};

const calendar: ServiceSpec = {
  name: 'calendar',
  params: { calendar_id: 'Calendar ID, primary for your own', event_id: 'ID of the event' },
  entities: [
    {
      name: 'event',
      gloss: 'a meeting or appointment',
      where: 'in a calendar',
      scope: 'calendar_id',
      fields:
        'summary!:Title|start!:Start time (ISO 8601)|end!:End time|attendees[]:Guest emails|location:Place or room|description:Agenda|recurrence:RRULE for repeating events|conference^:Add a video call link',
      verbs: 'list get create update delete search count export',
    },
    {
      name: 'calendar',
      gloss: 'a set of events with its own sharing',
      fields: 'summary!:Calendar name|time_zone:IANA time zone|description:Purpose',
      verbs: 'list get create update delete share permissions',
    },
    {
      name: 'room',
      gloss: 'a bookable meeting room',
      fields: 'name!:Room name|building:Building|capacity#:Seats|features[]:Equipment, e.g. projector',
      verbs: 'list get create update delete search',
    },
    {
      name: 'booking_page',
      gloss: 'a page where others pick a free slot with you',
      fields:
        'title!:Page title|duration_minutes#!:Slot length|availability!:Weekly hours as JSON|buffer_minutes#:Gap between bookings',
      verbs: 'list get create update delete share',
    },
    {
      name: 'working_hours_rule',
      gloss: 'when you are normally available on each weekday',
      fields: 'weekday!=mon,tue,wed,thu,fri,sat,sun:Day|start!:From, HH:MM|end!:Until, HH:MM',
      verbs: 'list create update delete',
    },
    {
      name: 'out_of_office',
      gloss: 'a period you are away that declines new meetings',
      fields: 'start!:From|end!:Until|decline_message:Reply to invitations',
      verbs: 'list create update delete',
    },
    {
      name: 'focus_time',
      gloss: 'a block reserved for uninterrupted work',
      fields: 'start!:From|end!:Until|auto_decline^:Decline meetings in it',
      verbs: 'list create update delete',
    },
    {
      name: 'reminder_preset',
      gloss: 'default notifications before your events',
      fields: 'minutes_before#!:Minutes before start|method=popup,email:How to notify',
      verbs: 'list create delete',
    },
    {
      name: 'holiday_calendar',
      gloss: 'public holidays of a country added to your view',
      fields: 'country!:ISO country code',
      verbs: 'list create delete',
    },
  ],
  actions: [
    {
      name: 'find_free_slots',
      description: 'Times when all the given people are free, within working hours.',
      params: 'attendees[]!:People|duration_minutes#!:Meeting length|from!:Earliest|to!:Latest',
    },
    {
      name: 'get_free_busy',
      description: 'Busy periods of people or calendars in a time range.',
      params: 'calendars[]!:People or calendars|from!:Start|to!:End',
    },
    {
      name: 'respond_to_invitation',
      description: 'Accept, decline or tentatively accept a meeting invitation.',
      params: 'event_id!|response!=accepted,declined,tentative:Your answer|comment:Note to the organiser',
    },
    {
      name: 'propose_new_time',
      description: 'Suggest another time for a meeting you were invited to.',
      params: 'event_id!|start!:Proposed start|end!:Proposed end',
    },
    {
      name: 'book_room',
      description: 'Reserve a meeting room for an event.',
      params: 'event_id!|room_id!:Room',
    },
    {
      name: 'find_available_room',
      description: 'Rooms free for a time slot with enough seats.',
      params: 'start!:From|end!:Until|capacity#:Seats needed|building:Building',
    },
    {
      name: 'quick_add_event',
      description: 'Create an event from a sentence such as "Lunch with Ana Friday 1pm".',
      params: 'calendar_id|text!:Natural-language description',
    },
    {
      name: 'get_agenda',
      description: 'Your events for today or a given day, in order.',
      params: 'date:Day, today when omitted',
    },
    {
      name: 'move_event',
      description: 'Move an event to another calendar.',
      params: 'event_id!|target_calendar_id!:Destination calendar',
    },
    {
      name: 'add_attendees',
      description: 'Invite more people to an existing event.',
      params: 'event_id!|attendees[]!:Emails to invite|notify^:Send invitations',
    },
    {
      name: 'cancel_event',
      description: 'Call off a meeting and notify its guests.',
      params: 'event_id!|message:Note to guests',
    },
    {
      name: 'get_meeting_load',
      description: 'Hours spent in meetings per week, by person.',
      params: 'attendees[]!:People|weeks#:Weeks to look back',
    },
  ],
};

const meetings: ServiceSpec = {
  name: 'meetings',
  params: { meeting_id: 'ID of the video meeting', webinar_id: 'ID of the webinar' },
  entities: [
    {
      name: 'meeting',
      gloss: 'a video call with a join link',
      fields:
        'topic!:Meeting topic|start_time:Start (ISO 8601)|duration_minutes#:Length|password:Passcode|waiting_room^:Admit people manually|recurrence:Recurrence as JSON',
      verbs: 'list get create update delete count',
    },
    {
      name: 'recording',
      gloss: 'a saved video and audio of a meeting',
      fields: 'meeting_id!',
      verbs: 'list get delete restore share count',
    },
    {
      name: 'transcript',
      gloss: 'the text of what was said in a recorded meeting',
      fields: 'meeting_id!',
      verbs: 'list get delete search',
    },
    {
      name: 'webinar',
      gloss: 'a large broadcast meeting with registrants and panelists',
      fields:
        'topic!:Webinar topic|start_time!:Start|duration_minutes#:Length|registration_required^:Attendees must register',
      verbs: 'list get create update delete',
    },
    {
      name: 'webinar_registrant',
      gloss: 'a person signed up for a webinar',
      where: 'of a webinar',
      scope: 'webinar_id',
      fields: 'email!:Email address|first_name!:First name|last_name:Last name',
      verbs: 'list get create delete export',
    },
    {
      name: 'panelist',
      gloss: 'a speaker of a webinar',
      where: 'of a webinar',
      scope: 'webinar_id',
      fields: 'email!:Email address|name!:Name',
      verbs: 'list create delete',
    },
    {
      name: 'meeting_room',
      gloss: 'a room system with a camera and screen',
      fields: 'name!:Room name|location:Where it is',
      verbs: 'list get create update delete',
    },
    {
      name: 'breakout_room',
      gloss: 'a sub-room a meeting can be split into',
      where: 'of a meeting',
      scope: 'meeting_id',
      fields: 'name!:Room name|participants[]:Emails pre-assigned',
      verbs: 'list create update delete',
    },
    {
      name: 'poll',
      gloss: 'a question asked to participants during a meeting',
      where: 'of a meeting',
      scope: 'meeting_id',
      fields: 'title!:Poll title|questions[]!:Questions as JSON',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'start_instant_meeting',
      description: 'Open a video call right now and get its join link.',
      params: 'topic:Meeting topic',
    },
    { name: 'end_meeting', description: 'End a live meeting for everyone.', params: 'meeting_id!' },
    {
      name: 'list_participants',
      description: 'Who joined a meeting, when, and for how long.',
      params: 'meeting_id!',
    },
    {
      name: 'get_meeting_summary',
      description: 'The AI summary of a recorded meeting: decisions and next steps.',
      params: 'meeting_id!',
    },
    {
      name: 'get_action_items',
      description: 'Tasks that people agreed to in a meeting, with owners.',
      params: 'meeting_id!',
    },
    {
      name: 'download_recording',
      description: 'Get a link to the video file of a recording.',
      params: 'recording_id!:Recording|file_type=mp4,m4a:Video or audio only',
    },
    {
      name: 'mute_participant',
      description: 'Mute someone in a live meeting.',
      params: 'meeting_id!|participant_id!:Participant',
    },
    {
      name: 'admit_from_waiting_room',
      description: 'Let people in the waiting room join.',
      params: 'meeting_id!|participant_ids[]!:People to admit',
    },
    {
      name: 'get_join_link',
      description: 'The join URL and dial-in numbers of a meeting.',
      params: 'meeting_id!',
    },
    {
      name: 'get_call_quality',
      description: 'Audio and video quality, packet loss and jitter per participant.',
      params: 'meeting_id!',
    },
    {
      name: 'translate_captions',
      description: 'Turn on live captions translated into another language.',
      params: 'meeting_id!|language!:Target language code',
    },
  ],
};

const drive: ServiceSpec = {
  name: 'drive',
  params: { file_id: 'ID of the file or folder', folder_id: 'ID of the folder' },
  entities: [
    {
      name: 'file',
      gloss: 'a document, spreadsheet, presentation or upload',
      where: 'in a folder',
      scope: 'folder_id',
      fields: 'name!:File name|mime_type:MIME type|content:Contents|description:Description',
      verbs:
        'list get create update delete search restore duplicate share permissions history comments comment watch count export',
    },
    {
      name: 'folder',
      gloss: 'a container for files',
      fields: 'name!:Folder name|parent_id:Parent folder',
      verbs: 'list get create update delete share permissions restore',
    },
    {
      name: 'shared_drive',
      gloss: 'a drive owned by a team rather than a person',
      fields: 'name!:Drive name|members[]:Members and roles',
      verbs: 'list get create update delete',
    },
    {
      name: 'spreadsheet',
      gloss: 'a grid of cells with formulas',
      fields: 'title!:Spreadsheet title|sheets[]:Sheet names',
      verbs: 'get create',
    },
    { name: 'presentation', gloss: 'a slide deck', fields: 'title!:Presentation title', verbs: 'get create' },
    {
      name: 'document',
      gloss: 'a text document',
      fields: 'title!:Document title|body:Initial content',
      verbs: 'get create',
    },
    {
      name: 'shortcut',
      gloss: 'a pointer to a file in another folder',
      fields: 'target_id!:File it points to|folder_id!',
      verbs: 'create delete',
    },
  ],
  actions: [
    {
      name: 'upload_file',
      description: 'Put a file from the computer into a folder.',
      params: 'folder_id|name!:File name|content!:Contents|mime_type:MIME type',
    },
    {
      name: 'download_file',
      description: 'Get the contents of a file, converting native documents to a chosen format.',
      params: 'file_id!|format=pdf,docx,xlsx,csv,txt,pptx:Export format',
    },
    {
      name: 'move_file',
      description: 'Put a file or folder into another folder.',
      params: 'file_id!|target_folder_id!:Destination folder',
    },
    { name: 'empty_trash', description: 'Permanently delete everything in the trash.', params: '' },
    {
      name: 'read_sheet_range',
      description: 'Values of a range of cells, e.g. Sheet1!A1:D20.',
      params: 'file_id!|range!:A1 range',
    },
    {
      name: 'write_sheet_range',
      description: 'Set values in a range of cells.',
      params: 'file_id!|range!:A1 range|values!:Rows as a JSON array of arrays',
    },
    {
      name: 'append_sheet_rows',
      description: 'Add rows after the last filled row of a sheet.',
      params: 'file_id!|sheet!:Sheet name|rows!:Rows as JSON',
    },
    {
      name: 'add_sheet_tab',
      description: 'Create another tab inside a spreadsheet.',
      params: 'file_id!|title!:Tab name',
    },
    {
      name: 'insert_document_text',
      description: 'Insert text into a document at a position or at the end.',
      params: 'file_id!|text!:Text to insert|index#:Character position',
    },
    {
      name: 'replace_document_text',
      description: 'Find and replace text throughout a document.',
      params: 'file_id!|find!:Text to find|replace!:Replacement|match_case^:Case-sensitive',
    },
    {
      name: 'add_slide',
      description: 'Append a slide with a layout to a presentation.',
      params:
        'file_id!|layout=title,title_and_body,blank,section:Slide layout|title:Slide title|body:Slide text',
    },
    {
      name: 'transfer_ownership',
      description: 'Make someone else the owner of a file.',
      params: 'file_id!|new_owner_email!:New owner',
    },
    { name: 'get_storage_quota', description: 'How much storage you use and have left.', params: '' },
    {
      name: 'list_recent_files',
      description: 'Files you opened or edited lately.',
      params: 'limit#:Maximum results',
    },
    { name: 'star_file', description: 'Star a file to find it quickly.', params: 'file_id!' },
  ],
};

const design: ServiceSpec = {
  name: 'design',
  params: {
    file_key: 'Key of the design file',
    node_id: 'ID of a frame or layer',
    team_id: 'ID of the team',
  },
  entities: [
    {
      name: 'design_file',
      gloss: 'a canvas of frames, layers and components',
      where: 'in a project',
      scope: 'team_id',
      fields: 'name!:File name|project_id!:Project',
      verbs: 'list get create update delete duplicate share permissions history search restore',
    },
    {
      name: 'project',
      gloss: 'a folder of design files owned by a team',
      where: 'of a team',
      scope: 'team_id',
      fields: 'name!:Project name',
      verbs: 'list get create update delete',
    },
    {
      name: 'component',
      gloss: 'a reusable design element such as a button',
      where: 'of a team',
      scope: 'team_id',
      fields: 'name!:Component name|node_id!',
      verbs: 'list get search',
    },
    {
      name: 'style',
      gloss: 'a shared color, text, effect or grid style',
      where: 'of a team',
      scope: 'team_id',
      fields: 'name!:Style name|style_type=fill,text,effect,grid:Kind of style',
      verbs: 'list get',
    },
    {
      name: 'comment',
      gloss: 'a remark pinned to a spot on the canvas',
      where: 'on a file',
      scope: 'file_key',
      fields: 'message!:Comment text|node_id:Pin it to this layer',
      verbs: 'list create delete',
    },
    {
      name: 'version',
      gloss: 'a named checkpoint of a design file',
      where: 'of a file',
      scope: 'file_key',
      fields: 'label!:Version name|description:What changed',
      verbs: 'list create',
    },
    {
      name: 'variable',
      gloss: 'a design token such as a color or spacing value',
      where: 'in a file',
      scope: 'file_key',
      fields: 'name!:Variable name|resolved_type=color,float,string,boolean:Type|value!:Value',
      verbs: 'list get create update delete',
    },
    {
      name: 'dev_resource',
      gloss: 'a link from a layer to code, docs or a ticket',
      where: 'in a file',
      scope: 'file_key',
      fields: 'node_id!|url!:Link|name!:Label',
      verbs: 'list create update delete',
    },
    {
      name: 'prototype_flow',
      gloss: 'a clickable path through frames',
      where: 'in a file',
      scope: 'file_key',
      fields: 'name!:Flow name|start_node_id!:First frame',
      verbs: 'list get create delete',
    },
  ],
  actions: [
    {
      name: 'get_node',
      description: 'The properties of a frame or layer: size, fills, text, children.',
      params: 'file_key!|node_id!',
    },
    {
      name: 'export_images',
      description: 'Render frames or layers as PNG, JPG, SVG or PDF.',
      params:
        'file_key!|node_ids[]!:Layers to render|format=png,jpg,svg,pdf:Image format|scale#:Scale factor',
    },
    {
      name: 'get_css',
      description: 'CSS for a layer: sizes, colors, typography and layout.',
      params: 'file_key!|node_id!',
    },
    {
      name: 'get_design_tokens',
      description: 'Colors, type scales and spacing of a file as design tokens JSON.',
      params: 'file_key!',
    },
    {
      name: 'resolve_comment',
      description: 'Mark a canvas comment as resolved.',
      params: 'file_key!|comment_id!:Comment',
    },
    {
      name: 'react_to_comment',
      description: 'Add an emoji reaction to a comment on a design.',
      params: 'file_key!|comment_id!:Comment|emoji!:Emoji',
    },
    {
      name: 'publish_library',
      description: "Publish a file's components and styles so other files can use them.",
      params: 'file_key!|message:What changed',
    },
    {
      name: 'get_image_fills',
      description: 'Download URLs of the images used as fills in a file.',
      params: 'file_key!',
    },
    {
      name: 'list_team_members',
      description: 'People in a design team and their roles.',
      params: 'team_id!',
    },
    {
      name: 'compare_versions',
      description: 'Visual diff between two versions of a design file.',
      params: 'file_key!|from_version!:Older version|to_version!:Newer version',
    },
    {
      name: 'generate_code',
      description: 'Turn a frame into React, SwiftUI or HTML code.',
      params: 'file_key!|node_id!|framework=react,swiftui,html:Target',
    },
    {
      name: 'check_accessibility',
      description: 'Find text with too little color contrast and touch targets that are too small.',
      params: 'file_key!|node_id:Only this frame',
    },
  ],
};

const forms: ServiceSpec = {
  name: 'forms',
  params: { form_id: 'ID of the form or survey' },
  entities: [
    {
      name: 'form',
      gloss: 'a survey or questionnaire people fill in',
      fields:
        'title!:Form title|description:Intro text|close_at:Stop accepting answers at|anonymous^:Do not record who answered',
      verbs: 'list get create update delete duplicate share archive restore count search',
    },
    {
      name: 'question',
      gloss: 'one field of a form',
      where: 'on a form',
      scope: 'form_id',
      fields:
        'title!:Question text|type!=short_text,long_text,multiple_choice,checkboxes,rating,date,file_upload:Answer type|choices[]:Options|required^:Must be answered',
      verbs: 'list get create update delete',
    },
    {
      name: 'response',
      gloss: "one person's submitted answers to a form",
      where: 'to a form',
      scope: 'form_id',
      fields: 'answers!:Answers as JSON',
      verbs: 'list get create delete export count search',
    },
    {
      name: 'theme',
      gloss: 'the colors, fonts and background of forms',
      fields: 'name!:Theme name|colors:Colors as JSON|font:Font family',
      verbs: 'list get create update delete',
    },
    {
      name: 'logic_rule',
      gloss: 'a branch that skips questions based on earlier answers',
      where: 'on a form',
      scope: 'form_id',
      fields: 'condition!:When it applies, as JSON|jump_to!:Question to go to',
      verbs: 'list create update delete',
    },
    {
      name: 'webhook',
      gloss: 'a URL that receives each new response',
      where: 'of a form',
      scope: 'form_id',
      fields: 'url!:Endpoint|secret:Signing secret',
      verbs: 'list get create update delete',
    },
    {
      name: 'workspace',
      gloss: 'a folder of forms shared with a team',
      fields: 'name!:Workspace name',
      verbs: 'list get create update delete',
    },
    {
      name: 'contact_list',
      gloss: 'people to send a survey to',
      fields: 'name!:List name|emails[]!:Addresses',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'get_form_insights',
      description: 'Views, starts, completion rate and average time to finish.',
      params: 'form_id!',
    },
    {
      name: 'summarize_responses',
      description: 'Per-question statistics: answer counts, averages and word clouds.',
      params: 'form_id!',
    },
    {
      name: 'send_survey_invitations',
      description: 'Email a survey link to a contact list.',
      params: 'form_id!|contact_list_id!:Who to send it to|message:Invitation text',
    },
    {
      name: 'send_survey_reminder',
      description: 'Remind people who have not answered yet.',
      params: 'form_id!|contact_list_id!:List',
    },
    { name: 'close_form', description: 'Stop accepting new responses.', params: 'form_id!' },
    { name: 'reopen_form', description: 'Accept responses again on a closed form.', params: 'form_id!' },
    { name: 'get_share_link', description: 'The public URL and embed code of a form.', params: 'form_id!' },
    {
      name: 'get_nps_score',
      description: 'The Net Promoter Score of a rating question.',
      params: 'form_id!|question_id!:The 0-10 question',
    },
    {
      name: 'translate_form',
      description: 'Add a translated version of every question.',
      params: 'form_id!|language!:Language code',
    },
    {
      name: 'create_form_from_template',
      description: 'Start a form from a ready-made template such as event feedback.',
      params: 'template!:Template name|title:Title',
    },
    { name: 'delete_all_responses', description: 'Wipe every response of a form.', params: 'form_id!' },
  ],
};

export const WORK_SERVICES: ServiceSpec[] = [chat, mail, calendar, meetings, drive, design, forms];

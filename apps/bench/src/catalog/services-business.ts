/** Generated services, part 5: customers, money and people. */
import type { ServiceSpec } from './model.js';

const crm: ServiceSpec = {
  name: 'crm',
  params: {
    contact_id: 'ID of the contact',
    company_id: 'ID of the company',
    deal_id: 'ID of the deal',
    owner_id: 'Sales rep who owns the record',
  },
  entities: [
    {
      name: 'contact',
      gloss: 'a person you do business with',
      fields:
        'email!:Email address|first_name:First name|last_name:Last name|phone:Phone|company_id|lifecycle_stage=subscriber,lead,opportunity,customer:Stage|owner_id',
      verbs: 'list get create update delete search bulk export history',
    },
    {
      name: 'company',
      plural: 'companies',
      gloss: 'an organization you sell to',
      fields:
        'name!:Company name|domain:Website domain|industry:Industry|employees#:Head count|annual_revenue#:Revenue in USD',
      verbs: 'list get create update delete search export',
    },
    {
      name: 'deal',
      gloss: 'a sales opportunity moving through a pipeline',
      fields:
        'name!:Deal name|amount#:Value in USD|stage!:Pipeline stage|close_date:Expected close date|company_id|owner_id',
      verbs: 'list get create update delete search count history export',
    },
    {
      name: 'lead',
      gloss: 'a prospect not yet qualified',
      fields: 'email!:Email|name:Full name|source:Where they came from|score#:Lead score',
      verbs: 'list get create update delete search',
    },
    {
      name: 'note',
      gloss: 'a free-text note on a contact, company or deal',
      fields: 'body!:Note text|contact_id|company_id|deal_id',
      verbs: 'list get create update delete',
    },
    {
      name: 'task',
      gloss: 'a follow-up to do for a sales rep',
      fields: 'subject!:What to do|due_date:When|owner_id:Who|contact_id',
      verbs: 'list get create update delete',
    },
    {
      name: 'pipeline',
      gloss: 'the stages deals go through',
      fields: 'name!:Pipeline name|stages[]!:Stage names in order',
      verbs: 'list get create update delete',
    },
    {
      name: 'call_log',
      gloss: 'a record of a phone call with a customer',
      fields:
        'contact_id!|duration_seconds#:Length|outcome=connected,voicemail,no_answer:Outcome|notes:Summary',
      verbs: 'list get create',
    },
    {
      name: 'email_sequence',
      gloss: 'a series of automated sales emails',
      fields: 'name!:Sequence name|steps[]!:Emails and delays as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'product',
      gloss: 'an item in the price book that deals can include',
      fields: 'name!:Product name|price#!:Unit price|sku:Stock-keeping unit',
      verbs: 'list get create update delete',
    },
    {
      name: 'quote',
      gloss: 'a priced offer sent to a customer for a deal',
      fields: 'deal_id!|line_items[]!:Products and quantities|expires_at:Valid until',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'move_deal_stage',
      description: 'Advance a deal to another stage of its pipeline, or mark it won or lost.',
      params: 'deal_id!|stage!:New stage|lost_reason:Why it was lost',
    },
    {
      name: 'convert_lead',
      description: 'Turn a qualified lead into a contact, a company and optionally a deal.',
      params: 'lead_id!:Lead|create_deal^:Also open a deal',
    },
    {
      name: 'merge_contacts',
      description: 'Combine duplicate contact records into one.',
      params: 'contact_id!:Record to keep|duplicate_id!:Record to merge in',
    },
    {
      name: 'enroll_in_sequence',
      description: 'Start sending a contact an automated email sequence.',
      params: 'contact_id!|email_sequence_id!:Sequence',
    },
    {
      name: 'associate_records',
      description: 'Link a contact to a company or a deal.',
      params:
        'from_id!:First record|to_id!:Second record|type!=contact_company,contact_deal,company_deal:Kind of link',
    },
    {
      name: 'get_sales_forecast',
      description: 'Expected revenue this quarter by rep, weighted by deal stage.',
      params: 'quarter:e.g. 2026-Q3|owner_id',
    },
    {
      name: 'get_pipeline_report',
      description: 'Deal count and value per stage, with conversion between stages.',
      params: 'pipeline_id!:Pipeline',
    },
    {
      name: 'send_quote',
      description: 'Email a quote to the customer for e-signature.',
      params: 'quote_id!:Quote|message:Cover note',
    },
    {
      name: 'get_contact_activity',
      description: 'Everything that happened with a contact: emails, calls, meetings, page visits.',
      params: 'contact_id!',
    },
    {
      name: 'assign_owner',
      description: 'Give contacts, companies or deals to a sales rep.',
      params: 'record_ids[]!:Records|owner_id!:Sales rep',
    },
    {
      name: 'enrich_company',
      description: "Fill in a company's size, industry and address from public data.",
      params: 'company_id!',
    },
  ],
};

const billing: ServiceSpec = {
  name: 'billing',
  params: {
    customer_id: 'ID of the customer, e.g. cus_123',
    invoice_id: 'ID of the invoice',
    subscription_id: 'ID of the subscription',
  },
  entities: [
    {
      name: 'customer',
      gloss: 'someone who pays you, with their payment methods',
      fields: 'email!:Billing email|name:Name|address:Billing address as JSON|tax_id:VAT or tax number',
      verbs: 'list get create update delete search',
    },
    {
      name: 'invoice',
      gloss: 'a bill for what a customer owes',
      fields:
        'customer_id!|items[]!:Line items as JSON|due_date:Payment due|collection_method=charge_automatically,send_invoice:How it is paid',
      verbs: 'list get create update delete search',
    },
    {
      name: 'subscription',
      gloss: 'a recurring charge for a plan',
      fields: 'customer_id!|price_id!:Price|quantity#:Seats|trial_days#:Free trial length|coupon:Coupon code',
      verbs: 'list get create update search',
    },
    {
      name: 'payment',
      gloss: 'a charge attempt on a card or bank account',
      fields:
        'amount#!:Amount in cents|currency!:ISO currency|customer_id|payment_method:Card or mandate|description:Statement text',
      verbs: 'list get create search',
    },
    {
      name: 'refund',
      gloss: 'money returned for a payment',
      fields:
        'payment_id!:Payment to refund|amount#:Cents, the whole payment when omitted|reason=duplicate,fraudulent,requested_by_customer:Why',
      verbs: 'list get create update',
    },
    {
      name: 'product',
      gloss: 'something you sell',
      fields: 'name!:Product name|description:What it is|active^:Can be bought',
      verbs: 'list get create update delete search',
    },
    {
      name: 'price',
      gloss: 'how much and how often a product is charged',
      fields:
        'product_id!:Product|unit_amount#!:Cents|currency!:ISO currency|interval=day,week,month,year:Billing period',
      verbs: 'list get create update search',
    },
    {
      name: 'coupon',
      gloss: 'a discount applied to invoices',
      fields:
        'percent_off#:Percent discount|amount_off#:Fixed discount in cents|duration=once,repeating,forever:How long it applies|max_redemptions#:Usage limit',
      verbs: 'list get create update delete',
    },
    {
      name: 'payout',
      gloss: 'a transfer of your balance to your bank account',
      fields: 'amount#!:Cents|currency!:ISO currency',
      verbs: 'list get create',
    },
    {
      name: 'dispute',
      gloss: 'a chargeback a customer raised with their bank',
      fields: 'evidence:Evidence as JSON',
      verbs: 'list get update',
    },
    {
      name: 'payment_method',
      gloss: 'a saved card or bank account of a customer',
      where: 'of a customer',
      scope: 'customer_id',
      fields: 'type!=card,sepa_debit,us_bank_account:Kind|token!:Tokenised details',
      verbs: 'list get create delete',
    },
    {
      name: 'tax_rate',
      gloss: 'a VAT or sales tax percentage applied to invoices',
      fields:
        'display_name!:e.g. VAT|percentage#!:Rate|jurisdiction:Country or state|inclusive^:Included in prices',
      verbs: 'list get create update',
    },
  ],
  actions: [
    {
      name: 'finalize_invoice',
      description: 'Lock a draft invoice so it can be paid.',
      params: 'invoice_id!',
    },
    {
      name: 'send_invoice',
      description: 'Email an invoice to the customer with a payment link.',
      params: 'invoice_id!',
    },
    {
      name: 'void_invoice',
      description: 'Cancel a finalized invoice that should not be paid.',
      params: 'invoice_id!',
    },
    {
      name: 'pay_invoice',
      description: "Charge the customer's saved payment method for an open invoice now.",
      params: 'invoice_id!',
    },
    {
      name: 'cancel_subscription',
      description: 'End a subscription now or at the end of the billing period.',
      params: 'subscription_id!|at_period_end^:Wait for the period to end',
    },
    {
      name: 'pause_subscription',
      description: 'Stop collecting payments on a subscription for a while.',
      params: 'subscription_id!|resume_at:When to resume',
    },
    {
      name: 'change_subscription_plan',
      description: 'Upgrade or downgrade a subscription to another price, with proration.',
      params: 'subscription_id!|price_id!:New price|prorate^:Charge or credit the difference',
    },
    {
      name: 'preview_upcoming_invoice',
      description: 'What the customer will be charged next, including proration.',
      params: 'customer_id!|subscription_id',
    },
    { name: 'get_balance', description: 'Your available and pending balance per currency.', params: '' },
    {
      name: 'create_checkout_session',
      description: 'A hosted payment page link for a one-off purchase or a new subscription.',
      params:
        'price_id!:Price|quantity#:Quantity|success_url!:Where to go after paying|mode=payment,subscription:Kind of checkout',
    },
    {
      name: 'create_billing_portal_link',
      description: 'A link where a customer manages their own cards, invoices and plan.',
      params: 'customer_id!|return_url:Where to go back to',
    },
    {
      name: 'get_mrr',
      description: 'Monthly recurring revenue, churn and growth over time.',
      params: 'months#:Months to look back',
    },
    {
      name: 'submit_dispute_evidence',
      description: 'Send your evidence to the bank to contest a chargeback.',
      params: 'dispute_id!:Dispute',
    },
    {
      name: 'apply_credit',
      description: 'Give a customer account credit used on future invoices.',
      params: 'customer_id!|amount#!:Cents|description:Why',
    },
  ],
};

const helpdesk: ServiceSpec = {
  name: 'helpdesk',
  params: { ticket_id: 'ID of the support ticket', requester_email: 'Email of the customer who asked' },
  entities: [
    {
      name: 'ticket',
      gloss: 'a customer support request',
      fields:
        'subject!:Subject|description!:What the customer asked|requester_email!|priority=low,normal,high,urgent:Priority|group_id:Team handling it|tags[]:Tags',
      verbs: 'list get create update delete search bulk count export history',
    },
    {
      name: 'macro',
      gloss: 'a canned response with field changes applied in one click',
      fields: 'title!:Macro name|actions[]!:Changes and reply as JSON',
      verbs: 'list get create update delete duplicate search',
    },
    {
      name: 'agent',
      gloss: 'a support team member who answers tickets',
      fields: 'email!:Email|name!:Name|role=agent,admin,light_agent:Role|group_ids[]:Teams',
      verbs: 'list get create update delete search',
    },
    {
      name: 'group',
      gloss: 'a team of agents that tickets are routed to',
      fields: 'name!:Team name|description:What they handle',
      verbs: 'list get create update delete',
    },
    {
      name: 'sla_policy',
      plural: 'sla_policies',
      gloss: 'target first-response and resolution times by priority',
      fields: 'title!:Policy name|targets!:Targets per priority as JSON|filter:Tickets it applies to',
      verbs: 'list get create update delete',
    },
    {
      name: 'article',
      gloss: 'a help center article customers can read',
      fields: 'title!:Article title|body!:Content|section_id!:Help center section|draft^:Not published yet',
      verbs: 'list get create update delete search archive',
    },
    {
      name: 'view',
      gloss: 'a saved list of tickets matching conditions',
      fields: 'title!:View name|conditions!:Filter as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'trigger',
      gloss: 'a rule that acts on tickets when they are created or updated',
      fields: 'title!:Trigger name|conditions!:When, as JSON|actions!:What to do, as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'satisfaction_rating',
      gloss: "a customer's good or bad rating of a solved ticket",
      fields: 'score=good,bad:Rating|comment:Customer comment',
      verbs: 'list get',
    },
    {
      name: 'end_user',
      gloss: 'a customer who contacts support',
      fields: 'email!:Email|name:Name|organization:Company',
      verbs: 'list get create update delete search',
    },
  ],
  actions: [
    {
      name: 'reply_to_ticket',
      description: 'Send the customer a public answer on a ticket.',
      params: 'ticket_id!|body!:Reply text|status=open,pending,solved:Status after replying',
    },
    {
      name: 'add_internal_note',
      description: 'Leave a private note on a ticket that only agents see.',
      params: 'ticket_id!|body!:Note text',
    },
    {
      name: 'assign_ticket',
      description: 'Give a ticket to an agent or a team.',
      params: 'ticket_id!|agent_id:Agent|group_id:Team',
    },
    {
      name: 'apply_macro',
      description: 'Run a canned response on a ticket.',
      params: 'ticket_id!|macro_id!:Macro',
    },
    {
      name: 'merge_tickets',
      description: 'Fold duplicate tickets from the same customer into one.',
      params: 'ticket_id!:Ticket to keep|source_ticket_ids[]!:Duplicates',
    },
    {
      name: 'escalate_ticket',
      description: "Raise a ticket's priority and hand it to tier 2.",
      params: 'ticket_id!|reason!:Why',
    },
    {
      name: 'solve_ticket',
      description: 'Mark a ticket solved, asking the customer for a rating.',
      params: 'ticket_id!',
    },
    {
      name: 'suggest_articles',
      description: 'Help center articles that likely answer a ticket.',
      params: 'ticket_id!',
    },
    {
      name: 'get_ticket_metrics',
      description: 'First reply time, resolution time and reopens of a ticket.',
      params: 'ticket_id!',
    },
    {
      name: 'get_support_volume',
      description: 'Tickets created and solved per day, by channel.',
      params: 'days#:Period in days',
    },
    {
      name: 'get_csat_report',
      description: 'Customer satisfaction score per agent and team.',
      params: 'days#:Period in days',
    },
    {
      name: 'list_tickets_by_requester',
      description: 'Every ticket one customer has opened.',
      params: 'requester_email!',
    },
    {
      name: 'translate_reply',
      description: "Translate your reply into the customer's language before sending.",
      params: 'text!:Reply|language!:Target language',
    },
  ],
};

const shop: ServiceSpec = {
  name: 'shop',
  params: {
    product_id: 'ID of the product',
    order_id: 'ID of the order',
    location_id: 'ID of the warehouse or store',
  },
  entities: [
    {
      name: 'product',
      gloss: 'an item for sale with variants, images and prices',
      fields:
        'title!:Product title|description:Product description|vendor:Brand|product_type:Category|tags[]:Tags|status=active,draft,archived:Visibility',
      verbs: 'list get create update delete search count bulk export duplicate',
    },
    {
      name: 'variant',
      gloss: 'a size, color or other option of a product with its own SKU and price',
      where: 'of a product',
      scope: 'product_id',
      fields: 'sku!:Stock-keeping unit|price!:Price|option_values[]!:e.g. Large, Blue|weight_grams#:Weight',
      verbs: 'list get create update delete',
    },
    {
      name: 'order',
      gloss: 'a customer purchase',
      fields:
        'line_items[]!:Products and quantities|customer_email!:Buyer|shipping_address!:Address as JSON|discount_code:Code to apply',
      verbs: 'list get create update search count export',
    },
    {
      name: 'customer',
      gloss: 'a shopper with an account',
      fields:
        'email!:Email|first_name:First name|last_name:Last name|accepts_marketing^:Subscribed to emails',
      verbs: 'list get create update delete search count',
    },
    {
      name: 'collection',
      gloss: 'a curated group of products shown together',
      fields:
        'title!:Collection title|rules:Automatic conditions as JSON|product_ids[]:Products in a manual collection',
      verbs: 'list get create update delete',
    },
    {
      name: 'discount',
      gloss: 'a code or automatic price reduction',
      fields:
        'code:Code customers type|value!:Amount or percentage|value_type=percentage,fixed_amount,free_shipping:Kind|starts_at!:From|ends_at:Until|usage_limit#:Times it can be used',
      verbs: 'list get create update delete',
    },
    {
      name: 'shipment',
      gloss: 'a package sent for an order, with tracking',
      fields:
        'order_id!|carrier!:Shipping carrier|tracking_number:Tracking number|line_items[]:Items in the package',
      verbs: 'list get create update',
    },
    {
      name: 'return',
      gloss: 'items a customer sends back',
      fields:
        'order_id!|line_items[]!:Items returned|reason=too_small,too_large,defective,not_as_described,other:Why',
      verbs: 'list get create',
    },
    {
      name: 'gift_card',
      gloss: 'prepaid store credit with a code',
      fields: 'initial_value!:Amount|expires_on:Expiry date|customer_email:Recipient',
      verbs: 'list get create update',
    },
    {
      name: 'location',
      gloss: 'a warehouse or store that holds stock',
      fields: 'name!:Location name|address!:Address as JSON',
      verbs: 'list get create update',
    },
    {
      name: 'abandoned_checkout',
      gloss: 'a cart a shopper left before paying',
      fields: 'checkout_id!:ID of the checkout',
      verbs: 'list get count',
    },
  ],
  actions: [
    {
      name: 'adjust_inventory',
      description: 'Add to or remove from the stock of a variant at a location.',
      params: 'variant_id!:Variant|location_id!|delta#!:Units to add (negative to remove)',
    },
    {
      name: 'get_inventory_levels',
      description: 'Units on hand per variant and location.',
      params: 'product_id|location_id',
    },
    {
      name: 'fulfill_order',
      description: 'Mark order items as shipped and email the customer the tracking link.',
      params: 'order_id!|tracking_number:Tracking number|carrier:Carrier|notify_customer^:Send the email',
    },
    {
      name: 'cancel_order',
      description: 'Cancel an order, restock its items and refund the payment.',
      params:
        'order_id!|reason=customer,fraud,inventory,other:Why|refund^:Refund the payment|restock^:Put the items back in stock',
    },
    {
      name: 'refund_order',
      description: 'Give money back for some or all items of an order.',
      params: "order_id!|line_items[]:Items to refund|amount:Amount, the items' total when omitted",
    },
    {
      name: 'create_draft_order',
      description: 'Build an order for a customer by hand and send them an invoice link.',
      params: 'line_items[]!:Products and quantities|customer_email!:Buyer',
    },
    {
      name: 'send_cart_recovery_email',
      description: 'Remind a shopper to finish an abandoned checkout.',
      params: 'checkout_id!:Checkout',
    },
    {
      name: 'get_sales_report',
      description: 'Revenue, orders and average order value per day.',
      params: 'from!:Start date|to!:End date|group_by=day,week,month,product,channel:Grouping',
    },
    {
      name: 'get_best_sellers',
      description: 'Products that sold the most units in a period.',
      params: 'from!:Start date|to!:End date|limit#:How many',
    },
    {
      name: 'print_shipping_label',
      description: 'Buy and print a shipping label for an order.',
      params: 'order_id!|carrier!:Carrier|service:Service level',
    },
    {
      name: 'get_shipping_rates',
      description: 'What carriers charge to ship a parcel to an address.',
      params: 'weight_grams#!:Parcel weight|destination!:Address as JSON',
    },
    {
      name: 'mark_order_paid',
      description: 'Record payment for an order paid outside the checkout.',
      params: 'order_id!',
    },
    {
      name: 'tag_orders',
      description: 'Add tags to several orders.',
      params: 'order_ids[]!:Orders|tags[]!:Tags to add',
    },
  ],
};

const campaigns: ServiceSpec = {
  name: 'campaigns',
  params: { audience_id: 'ID of the audience (mailing list)', campaign_id: 'ID of the campaign' },
  entities: [
    {
      name: 'campaign',
      gloss: 'an email newsletter or promotion sent to an audience',
      fields:
        'subject!:Subject line|audience_id!|from_name!:Sender name|template_id:Template|segment_id:Only this segment',
      verbs: 'list get create update delete duplicate search count',
    },
    {
      name: 'audience',
      gloss: 'a mailing list of subscribers',
      fields: 'name!:List name|from_email!:Default sender|permission_reminder!:Why people get these emails',
      verbs: 'list get create update delete',
    },
    {
      name: 'subscriber',
      gloss: 'a person on a mailing list',
      where: 'in an audience',
      scope: 'audience_id',
      fields:
        'email!:Email address|status=subscribed,unsubscribed,pending,cleaned:Subscription state|merge_fields:First name, last name and more as JSON|tags[]:Tags',
      verbs: 'list get create update delete search bulk export count history',
    },
    {
      name: 'segment',
      gloss: 'a filtered part of an audience',
      where: 'in an audience',
      scope: 'audience_id',
      fields: 'name!:Segment name|conditions!:Rules as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'template',
      gloss: 'an email design reused by campaigns',
      fields: 'name!:Template name|html!:HTML',
      verbs: 'list get create update delete duplicate',
    },
    {
      name: 'automation',
      gloss: 'an email journey triggered by signup, purchase or date',
      fields: 'name!:Journey name|trigger!:What starts it|emails[]!:Emails and delays as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'signup_form',
      gloss: 'a form on your website that adds subscribers',
      where: 'for an audience',
      scope: 'audience_id',
      fields: 'name!:Form name|fields[]:Fields to ask for|double_opt_in^:Confirm by email',
      verbs: 'list get create update delete',
    },
    {
      name: 'landing_page',
      gloss: 'a hosted page for a promotion',
      fields: 'title!:Page title|html!:Content|audience_id',
      verbs: 'list get create update delete',
    },
    {
      name: 'tag',
      gloss: 'a label on subscribers',
      where: 'in an audience',
      scope: 'audience_id',
      fields: 'name!:Tag name',
      verbs: 'list create delete',
    },
  ],
  actions: [
    { name: 'send_campaign', description: 'Send a campaign to its audience now.', params: 'campaign_id!' },
    {
      name: 'schedule_campaign',
      description: "Send a campaign at a set time, optionally in each subscriber's time zone.",
      params: 'campaign_id!|send_at!:When|timewarp^:Local time per subscriber',
    },
    {
      name: 'send_test_email',
      description: 'Send a preview of a campaign to yourself or colleagues.',
      params: 'campaign_id!|emails[]!:Where to send the test',
    },
    {
      name: 'get_campaign_report',
      description: 'Opens, clicks, bounces and unsubscribes of a sent campaign.',
      params: 'campaign_id!',
    },
    {
      name: 'get_click_map',
      description: 'Which links in a campaign were clicked and how often.',
      params: 'campaign_id!',
    },
    {
      name: 'unsubscribe_member',
      description: 'Stop sending someone marketing email.',
      params: 'audience_id!|email!:Address',
    },
    {
      name: 'import_subscribers',
      description: 'Add many subscribers at once from CSV.',
      params: 'audience_id!|csv!:CSV with an email column|update_existing^:Update known ones',
    },
    {
      name: 'create_ab_test',
      description: 'Split-test two subject lines or contents and send the winner to the rest.',
      params:
        'audience_id!|variant_a!:First version as JSON|variant_b!:Second version as JSON|test_percent#:Share used for the test|winner_by=opens,clicks:How to pick the winner',
    },
    {
      name: 'check_spam_score',
      description: 'Rate how likely a campaign is to land in spam, with fixes.',
      params: 'campaign_id!',
    },
    {
      name: 'pause_automation',
      description: 'Stop an email journey from sending for now.',
      params: 'automation_id!:Journey',
    },
    {
      name: 'get_audience_growth',
      description: 'Subscribers gained and lost per month.',
      params: 'audience_id!|months#:Months',
    },
    {
      name: 'verify_sending_domain',
      description: 'Check the SPF and DKIM records of a domain you send from.',
      params: 'domain!:Sending domain',
    },
  ],
};

const accounting: ServiceSpec = {
  name: 'accounting',
  params: {
    account_id: 'ID of the ledger account',
    vendor_id: 'ID of the supplier',
    bank_account_id: 'ID of the bank account',
  },
  entities: [
    {
      name: 'account',
      gloss: 'a ledger account in the chart of accounts',
      fields:
        'name!:Account name|code!:Account number|type!=asset,liability,equity,revenue,expense:Account type|currency:Currency',
      verbs: 'list get create update archive',
    },
    {
      name: 'journal_entry',
      plural: 'journal_entries',
      gloss: 'a balanced set of debits and credits',
      fields: 'date!:Posting date|lines[]!:Debit and credit lines as JSON|memo:Description',
      verbs: 'list get create update delete search export',
    },
    {
      name: 'bill',
      gloss: 'an invoice from a supplier that you have to pay',
      fields:
        "vendor_id!|due_date!:When payment is due|lines[]!:Line items as JSON|reference:Supplier's invoice number",
      verbs: 'list get create update delete search',
    },
    {
      name: 'vendor',
      gloss: 'a supplier you buy from',
      fields: 'name!:Supplier name|email:Email|tax_id:Tax number|payment_terms:e.g. Net 30',
      verbs: 'list get create update archive search',
    },
    {
      name: 'expense',
      gloss: 'money spent, with its receipt and category',
      fields:
        'amount!:Amount|date!:Date|category!:Expense category|receipt_file_id:Receipt|employee_id:Who spent it|merchant:Where',
      verbs: 'list get create update delete search export',
    },
    {
      name: 'bank_account',
      gloss: 'a connected business bank account',
      fields: 'name!:Account name|iban:IBAN|currency!:Currency',
      verbs: 'list get create update',
    },
    {
      name: 'bank_transaction',
      gloss: 'a line from the bank feed',
      where: 'of a bank account',
      scope: 'bank_account_id',
      fields: 'memo:Bank reference text',
      verbs: 'list get search',
    },
    {
      name: 'tax_rate',
      gloss: 'a VAT or sales tax rate used on transactions',
      fields: 'name!:Name|rate!:Percentage',
      verbs: 'list get create update',
    },
    {
      name: 'budget',
      gloss: 'planned amounts per account and month',
      fields: 'name!:Budget name|year#!:Fiscal year|amounts!:Per account and month as JSON',
      verbs: 'list get create update delete',
    },
    {
      name: 'fixed_asset',
      gloss: 'equipment or property depreciated over years',
      fields:
        'name!:Asset name|purchase_price!:Cost|purchase_date!:Bought on|useful_life_years#!:Years to depreciate over',
      verbs: 'list get create update',
    },
    {
      name: 'sales_invoice',
      gloss: 'an invoice you send to a client',
      fields: 'client!:Client name|lines[]!:Line items as JSON|due_date!:Payment due',
      verbs: 'list get create update delete',
    },
  ],
  actions: [
    {
      name: 'reconcile_transaction',
      description: 'Match a bank feed line to a bill, invoice or expense.',
      params: 'bank_transaction_id!:Bank line|match_id!:Document it pays',
    },
    {
      name: 'get_profit_and_loss',
      description: 'Income statement: revenue, costs and profit for a period.',
      params: 'from!:Start date|to!:End date|compare_previous^:Add the previous period',
    },
    {
      name: 'get_balance_sheet',
      description: 'Assets, liabilities and equity at a date.',
      params: 'date!:As of',
    },
    {
      name: 'get_cash_flow',
      description: 'Cash in and out by activity for a period.',
      params: 'from!:Start date|to!:End date',
    },
    {
      name: 'get_trial_balance',
      description: 'Debit and credit totals per account at a date.',
      params: 'date!:As of',
    },
    {
      name: 'get_aged_payables',
      description: 'What you owe suppliers, grouped by how overdue.',
      params: 'date:As of',
    },
    {
      name: 'get_aged_receivables',
      description: 'What clients owe you, grouped by how overdue.',
      params: 'date:As of',
    },
    {
      name: 'pay_bill',
      description: 'Record a payment of a supplier bill from a bank account.',
      params: 'bill_id!:Bill|bank_account_id!:Paid from|date!:Payment date',
    },
    {
      name: 'close_period',
      description: 'Lock the books up to a date so nothing before it changes.',
      params: 'date!:Lock date',
    },
    {
      name: 'scan_receipt',
      description: 'Read the merchant, date, total and tax from a photo of a receipt.',
      params: 'image_base64!:Photo of the receipt',
    },
    {
      name: 'run_depreciation',
      description: 'Post depreciation of fixed assets up to a date.',
      params: 'date!:Up to',
    },
    {
      name: 'get_vat_return',
      description: 'VAT collected and paid for a filing period.',
      params: 'from!:Start date|to!:End date',
    },
    {
      name: 'convert_currency',
      description: "Amount in another currency at the day's exchange rate.",
      params: 'amount!:Amount|from_currency!:From|to_currency!:To|date:Rate date',
    },
  ],
};

const hr: ServiceSpec = {
  name: 'hr',
  params: { employee_id: 'ID of the employee' },
  entities: [
    {
      name: 'employee',
      gloss: 'a person employed by the company',
      fields:
        'first_name!:First name|last_name!:Last name|work_email!:Work email|department_id:Department|job_title:Job title|manager_id:Manager|start_date:First day',
      verbs: 'list get create update search export history count',
    },
    {
      name: 'department',
      gloss: 'an organizational unit',
      fields: 'name!:Department name|head_id:Head of department|parent_id:Parent department',
      verbs: 'list get create update delete',
    },
    {
      name: 'time_off_request',
      gloss: 'a request for vacation, sick leave or other absence',
      fields:
        'employee_id!|type!=vacation,sick,parental,unpaid:Kind of leave|start!:First day|end!:Last day|note:Comment',
      verbs: 'list get create delete',
    },
    {
      name: 'job_opening',
      gloss: 'a position the company is hiring for',
      fields:
        'title!:Job title|department_id!:Department|location:Office or remote|description!:Job description|salary_range:Pay range',
      verbs: 'list get create update archive',
    },
    {
      name: 'candidate',
      gloss: 'an applicant for a job opening',
      fields: 'name!:Full name|email!:Email|job_opening_id!:Job applied for|resume_file_id:CV',
      verbs: 'list get create update search',
    },
    {
      name: 'interview',
      gloss: 'a scheduled conversation with a candidate',
      fields:
        'candidate_id!:Candidate|interviewers[]!:Interviewers|start!:When|kind=phone_screen,technical,onsite,culture:Interview type',
      verbs: 'list get create update delete',
    },
    {
      name: 'performance_review',
      gloss: 'a periodic evaluation of an employee',
      fields:
        'employee_id!|reviewer_id!:Reviewer|cycle!:e.g. 2026 H1|rating=1,2,3,4,5:Overall rating|summary:Summary',
      verbs: 'list get create update',
    },
    {
      name: 'goal',
      gloss: 'an objective an employee or team works towards',
      fields: 'owner_id!:Employee|title!:Goal|due_date:Due date|progress#:Percent done',
      verbs: 'list get create update delete',
    },
    {
      name: 'onboarding_task',
      gloss: "a step in a new hire's first weeks, such as laptop setup",
      fields: 'employee_id!|title!:Task|assignee_id:Who does it|due_date:Due date',
      verbs: 'list create update delete',
    },
    {
      name: 'benefit_plan',
      gloss: 'health, pension or other benefits employees can enroll in',
      fields: 'name!:Plan name|type=health,dental,pension,life:Kind',
      verbs: 'list get',
    },
  ],
  actions: [
    {
      name: 'approve_time_off',
      description: 'Approve or reject an absence request.',
      params: 'time_off_request_id!:Request|approved^!:Approve or reject|comment:Note',
    },
    {
      name: 'get_time_off_balance',
      description: 'Vacation and sick days an employee has left this year.',
      params: 'employee_id!',
    },
    {
      name: 'who_is_out',
      description: 'Employees absent on a day or during a week.',
      params: 'date!:Day|days#:Length of the period',
    },
    {
      name: 'get_org_chart',
      description: 'Reporting lines under a manager or for the whole company.',
      params: 'root_employee_id:Start from this manager',
    },
    {
      name: 'terminate_employee',
      description: "Record an employee's last day and start offboarding.",
      params:
        'employee_id!|last_day!:Last working day|reason=resignation,dismissal,end_of_contract,retirement:Why',
    },
    {
      name: 'move_candidate_stage',
      description: 'Advance or reject a candidate in the hiring pipeline.',
      params: 'candidate_id!:Candidate|stage!=screening,interview,offer,hired,rejected:New stage',
    },
    {
      name: 'send_offer_letter',
      description: 'Send a candidate a job offer to sign.',
      params: 'candidate_id!:Candidate|salary!:Annual salary|start_date!:Proposed start',
    },
    {
      name: 'submit_interview_feedback',
      description: "Record an interviewer's scorecard for a candidate.",
      params: 'interview_id!:Interview|recommendation=strong_yes,yes,no,strong_no:Verdict|notes:Notes',
    },
    {
      name: 'get_headcount_report',
      description: 'Employees per department over time, with hires and leavers.',
      params: 'months#:Months to look back',
    },
    {
      name: 'enroll_in_benefit',
      description: 'Sign an employee up for a benefit plan.',
      params: 'employee_id!|benefit_plan_id!:Plan',
    },
    {
      name: 'get_payslip',
      description: "An employee's payslip for a month.",
      params: 'employee_id!|month!:YYYY-MM',
    },
    {
      name: 'update_salary',
      description: "Change an employee's pay from a date.",
      params: 'employee_id!|amount!:New annual salary|effective_date!:From',
    },
  ],
};

export const BUSINESS_SERVICES: ServiceSpec[] = [crm, billing, helpdesk, shop, campaigns, accounting, hr];

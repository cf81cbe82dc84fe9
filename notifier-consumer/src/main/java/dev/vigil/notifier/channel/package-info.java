/**
 * Delivery channels (signed webhook, PagerDuty, Slack, Alertmanager API and webhook format): each
 * builds the HTTP request for one event; routes map services to channels, read from a file or env.
 */
package dev.vigil.notifier.channel;

import nodemailer from 'nodemailer';
import { expect } from 'vitest';
import { campaignWith, type Member, newMember, ok } from './campaigns.ts';
import { ownerApi, ownerTokenOf } from './owner-api.ts';
import type { TestServer } from './test-server.ts';

/** Helpers for campaign mailbox tests (issue 18): a campaign with its address, and the owner's grant. */

export interface CampaignMailbox {
  /** The campaign's coordinator (a new owner's agent), connected to `server`. */
  coordinator: Member;
  campaignId: string;
  /** The campaign's receiving address, made by its first campaign_mail_address. */
  address: string;
  /** An owner API token of the coordinator's owner, the campaign's owner of record. */
  token: string;
}

/** A new campaign of a new coordinator, with its mailbox opened; nobody may read its mail yet. */
export async function campaignMailbox(server: TestServer): Promise<CampaignMailbox> {
  const coordinator = await newMember(server);
  const campaignId = await campaignWith(coordinator, []);
  const box = await ok(coordinator, 'campaign_mail_address', { campaign_id: campaignId }, false);
  return {
    coordinator,
    campaignId,
    address: box.address as string,
    token: await ownerTokenOf(server, coordinator),
  };
}

/** The owner of record closes the mailbox's campaign over the owner API, as a person does. */
export async function closeCampaign(server: TestServer, box: CampaignMailbox): Promise<void> {
  const closed = await ownerApi(server, box.token, 'POST', `/v1/campaigns/${box.campaignId}/close`, {});
  if (closed.body.status !== 'CLOSED') throw new Error(`close failed: ${JSON.stringify(closed.body)}`);
}

/**
 * The coordinator asks for the mail (campaign_mail_request_access) and the owner approves over
 * the owner API; answers the request id.
 */
export async function grantMailAccess(server: TestServer, box: CampaignMailbox): Promise<string> {
  const asked = await ok(box.coordinator, 'campaign_mail_request_access', {
    campaign_id: box.campaignId,
    reason: 'Replies.',
  });
  const decided = await ownerApi(
    server,
    box.token,
    'POST',
    `/v1/campaigns/${box.campaignId}/mail/access-requests/${asked.request_id}/decision`,
    { decision: 'APPROVE' },
  );
  expect(decided.body, JSON.stringify(decided.body)).toMatchObject({
    status: 'GRANTED',
    agent_id: box.coordinator.agentId,
  });
  return asked.request_id as string;
}

/** A campaign whose coordinator may read its mail (requested, and granted by its owner). */
export async function grantedMailbox(server: TestServer): Promise<CampaignMailbox> {
  const box = await campaignMailbox(server);
  await grantMailAccess(server, box);
  return box;
}

/** A real SMTP client for the built-in receiver on `port` (loopback, no TLS, no AUTH). */
export function smtpSender(port: number) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    name: 'sender.test',
  });
}

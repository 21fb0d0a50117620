import type { Page } from 'playwright-core';

/** The password every e2e account signs up with (long enough for the sign-up rules). */
export const PASSWORD = 'a long enough passphrase';

/** A link of the main navigation, by its exact name. */
export const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

export interface NewOwner {
  name: string;
  email: string;
  org: string;
}

/**
 * Signs up as the owner of a new organization, which lands on the Overview with its setup
 * checklist. When CI runs a failed test once more and the account is already there from the first
 * attempt, signs in to it instead, so the second attempt tests what it is about.
 */
export async function signUp(page: Page, owner: NewOwner, password = PASSWORD): Promise<void> {
  await page.goto('/sign-up');
  await page.getByLabel('Your name').fill(owner.name);
  await page.getByLabel('Work email').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Organization name').fill(owner.org);
  await page.getByRole('button', { name: 'Create account' }).click();
  const overview = page.getByRole('heading', { name: 'Overview', level: 1 });
  const taken = page.getByText('An account with this email already exists');
  await overview.or(taken).first().waitFor();
  if (await taken.isVisible()) {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await overview.waitFor();
    return;
  }
  await page.getByRole('region', { name: 'Get started' }).waitFor();
}

/** Creates a workspace from the Workspaces screen (opened from the navigation if elsewhere) and waits for its card. */
export async function createWorkspace(page: Page, name: string): Promise<void> {
  const heading = page.getByRole('heading', { name: 'Workspaces', level: 1 });
  if (!(await heading.isVisible())) {
    await nav(page, 'Workspaces').click();
    await heading.waitFor();
  }
  await page.getByLabel('Workspace name').fill(name);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('article', { name }).waitFor();
}

/**
 * Signs up, creates a workspace, reveals its API key and creates a personal access token
 * (shown once): what a partner integration needs to call the public API.
 */
export async function signUpWithToken(
  page: Page,
  owner: NewOwner,
  workspace: string,
  password = PASSWORD,
): Promise<{ workspaceApiKey: string; pat: string }> {
  await signUp(page, owner, password);
  await createWorkspace(page, workspace);
  const card = page.getByRole('article', { name: workspace });
  await card.getByRole('button', { name: 'Reveal' }).click();
  const workspaceApiKey = (await card.getByLabel('Workspace API key').textContent())?.trim() ?? '';
  await nav(page, 'Access tokens').click();
  await page.getByLabel('Token name').fill('Backend');
  await page.getByRole('button', { name: 'Create token' }).click();
  const pat = (await page.getByLabel('New personal access token').textContent())?.trim() ?? '';
  return { workspaceApiKey, pat };
}

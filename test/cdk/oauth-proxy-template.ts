// Test fixture for the OAuth proxy as McpTaskEndpoint deploys it by default: the example stack synthesized once per
// test file, its template, the logical IDs of the proxy's resources and those beside it, and helpers that read the
// template, IAM statements included. useOAuthProxyTemplate() registers the hook that synthesizes it; `stack`,
// `template` and `ids` are live bindings, set before the test file's first test.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll } from 'vitest';
import type { ExampleToolsStack } from '../../bin/example-tools-stack.js';
import { exampleStack, logicalId, type TemplateResource } from './cdk-app.js';

export type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

export let stack: ExampleToolsStack;
export let template: Template;
export let ids: {
  api: string;
  userPool: string;
  mcpFunction: string;
  mcpRole: string;
  oauthFunction: string;
  oauthRole: string;
  table: string;
  client: string;
  clientSecret: string;
  signingKey: string;
};

/** Registers the beforeAll hook that synthesizes the example stack; use what it sets inside tests only. */
export function useOAuthProxyTemplate(): void {
  beforeAll(() => {
    ({ stack, template } = exampleStack());
    const { endpoint } = stack;
    const proxy = endpoint.oauthProxy!;
    ids = {
      api: logicalId(stack, endpoint.restApi.api),
      userPool: logicalId(stack, endpoint.auth!.userPool as never),
      mcpFunction: logicalId(stack, endpoint.mcpFunction),
      mcpRole: logicalId(stack, endpoint.mcpHandler.role),
      oauthFunction: logicalId(stack, proxy.function),
      oauthRole: logicalId(stack, proxy.handler.role),
      table: logicalId(stack, proxy.table),
      client: logicalId(stack, proxy.upstreamClient),
      clientSecret: logicalId(stack, proxy.upstreamClientSecret),
      signingKey: logicalId(stack, proxy.signingKey),
    };
  });
}

export function resources(source: Template, type: string): Record<string, TemplateResource> {
  return source.findResources(type) as Record<string, TemplateResource>;
}

export function environmentOf(source: Template, functionId: string): Record<string, unknown> {
  return source.toJSON()['Resources'][functionId].Properties['Environment'].Variables as Record<string, unknown>;
}

/**
 * Every IAM statement in the template with the roles it applies to: policies, managed policies and roles' inline
 * policies alike, so a grant cannot hide in any of them.
 */
export function everyStatement(source: Template): { roles: string[]; statement: Statement }[] {
  const found: { roles: string[]; statement: Statement }[] = [];
  const roleRefs = (roles: unknown) => ((roles ?? []) as { Ref: string }[]).map((role) => role.Ref);
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const policy of Object.values(resources(source, type))) {
      for (const statement of policy.Properties['PolicyDocument'].Statement as Statement[])
        found.push({ roles: roleRefs(policy.Properties['Roles']), statement });
    }
  }
  for (const [roleId, role] of Object.entries(resources(source, 'AWS::IAM::Role'))) {
    for (const policy of (role.Properties['Policies'] ?? []) as { PolicyDocument: { Statement: Statement[] } }[])
      for (const statement of policy.PolicyDocument.Statement) found.push({ roles: [roleId], statement });
  }
  return found;
}

/** The roles any statement lets call `action` (or a wildcard covering it) on a resource that names `resourceId`. */
export function rolesAllowed(source: Template, action: string, resourceId: string): string[] {
  const [service] = action.split(':');
  const covers = (granted: string) => granted === action || granted === '*' || granted === `${service}:*`;
  return everyStatement(source)
    .filter(({ statement }) => statement.Effect === 'Allow')
    .filter(({ statement }) => [statement.Action].flat().some(covers))
    .filter(({ statement }) => {
      const text = JSON.stringify(statement.Resource);
      return text.includes(`"${resourceId}"`) || text === '"*"' || text === '["*"]';
    })
    .flatMap(({ roles }) => roles)
    .sort();
}

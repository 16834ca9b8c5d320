// cdk-nag's AWS Solutions rules on the deployments this project makes: no finding left, and no acknowledgement
// that silences nothing (each one must answer a real finding, with its reason).
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { exampleStack } from './cdk-app.js';
import type { ExampleToolsStackProps } from '../../bin/example-tools-stack.js';
import type { DiscoverToolsProps } from '../../lib/tools/tool-discovery.js';

type Finding = `${string} ${string}`;

/** Unacknowledged findings, as `RuleId construct/path`. */
function findings(app: App, options: { ignoreAcknowledgements?: boolean } = {}): Finding[] {
  const pack = new AwsSolutionsChecks();
  // Private in cdk-nag 3; replaced here only to list what the acknowledgements hide.
  if (options.ignoreAcknowledgements)
    (pack as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
  return pack.validateScope(app).violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => {
      const path = (resource as { constructPath?: string }).constructPath ?? resource.resourceLogicalId;
      return `${violation.ruleName} ${path}` as Finding;
    }),
  );
}

/** Every acknowledgement in the tree, as `RuleId construct/path` of the construct it was made on. */
function acknowledgements(scope: IConstruct): { id: string; path: string; reason: string }[] {
  const own = scope.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) =>
      Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
        id: id.replace(/^annotation::/i, ''),
        path: scope.node.path,
        reason,
      })),
    );
  return [...own, ...scope.node.children.flatMap(acknowledgements)];
}

describe.each([
  { name: 'the example app (the OAuth proxy on)', props: undefined },
  {
    name: 'the Cognito authorizer instead of the OAuth proxy',
    props: { endpoint: { oauthProxy: false, machineClient: true } },
  },
  {
    name: 'the OAuth proxy without registration or metadata documents, with CORS and its own redirect URIs',
    props: {
      endpoint: {
        dynamicClientRegistration: false,
        clientIdMetadataDocuments: false,
        allowedRedirectUris: ['loopback', 'https://app.example.com/oauth/callback'],
        corsAllowOrigins: ['https://app.example.com'],
      },
    },
  },
  {
    name: 'an open endpoint with CORS',
    props: { endpoint: { openEndpoint: true, corsAllowOrigins: ['https://app.example.com'] } },
  },
  {
    name: 'tracing, WAF, execution logs, the account role and reserved concurrency on',
    props: {
      endpoint: {
        tracing: true,
        webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/mcp/1111',
        executionLoggingLevel: 'INFO' as never,
        createApiGatewayAccountRole: true,
        mcpFunctionReservedConcurrency: 100,
      },
    },
  },
  {
    name: 'tools discovered by prefix and tag',
    props: undefined,
    discover: { namePrefix: 'orders-', tag: { key: 'mcp:tool', value: 'true' } },
  },
  {
    name: 'tools discovered by tag alone, with tracing',
    props: { endpoint: { tracing: true } },
    discover: { tag: { key: 'team', value: 'a' } },
  },
  {
    name: 'tools discovered by names, any machine allowed',
    props: undefined,
    discover: { names: ['billing'], allowAnyStateMachine: true },
  },
])(
  'cdk-nag AwsSolutionsChecks on $name',
  ({ props, discover }: { props?: ExampleToolsStackProps; discover?: DiscoverToolsProps }) => {
    const { app } = exampleStack({ ...(props ? { props } : {}), ...(discover ? { discover } : {}) });

    it('leaves no unacknowledged finding', () => {
      expect(findings(app)).toEqual([]);
    });

    it('has no acknowledgement without a finding it answers', () => {
      const raw = findings(app, { ignoreAcknowledgements: true });
      for (const { id, path } of acknowledgements(app)) {
        expect(
          raw.some((finding) => finding.startsWith(`${id} ${path}/`) || finding === `${id} ${path}`),
          `${id} on ${path}`,
        ).toBe(true);
      }
    });

    it('gives every acknowledgement a reason a reviewer can check', () => {
      for (const { id, reason } of acknowledgements(app)) expect(reason.length, id).toBeGreaterThan(40);
    });
  },
);

describe('cdk-nag as the CDK app registers it', () => {
  it('lets the example app synthesize with the plugin on', () => {
    const { app } = exampleStack();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});

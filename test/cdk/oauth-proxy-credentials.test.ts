// The OAuth proxy as McpTaskEndpoint deploys it by default: its confidential Cognito client, the secrets only the
// right roles can read (and no function's environment holds), its table and the least access to it.
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { OAUTH_ENV } from '../../lambda/contract/environment-names.js';
import { OAUTH_PARTITION_KEY, OAUTH_TTL_ATTRIBUTE } from '../../lambda/contract/oauth-table-schema.js';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import { dynamoDbActionsOf, joined, logicalId, TEST_ENV, testStack, type TemplateResource } from './cdk-app.js';
import {
  environmentOf,
  everyStatement,
  ids,
  resources,
  rolesAllowed,
  template,
  useOAuthProxyTemplate,
} from './oauth-proxy-template.js';

useOAuthProxyTemplate();

describe('Cognito client', () => {
  it('is one confidential client of the endpoint’s user pool: code grant, openid and email, the proxy’s callback', () => {
    const client = template.toJSON()['Resources'][ids.client] as TemplateResource;
    expect(client.Type).toBe('AWS::Cognito::UserPoolClient');
    expect(client.Properties).toMatchObject({
      UserPoolId: { Ref: ids.userPool },
      GenerateSecret: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
      RefreshTokenValidity: 30 * 24 * 60,
      TokenValidityUnits: expect.objectContaining({ RefreshToken: 'minutes' }),
    });
    expect(client.Properties['CallbackURLs'].map(joined)).toEqual([
      `https://\${${ids.api}}.execute-api.${TEST_ENV.region}.\${AWS::URLSuffix}/prod/oauth/callback`,
    ]);
  });

  it('is named to the proxy function with the user pool’s issuer', () => {
    const variables = environmentOf(template, ids.oauthFunction);
    expect(variables[OAUTH_ENV.upstreamClientId]).toEqual({ Ref: ids.client });
    expect(joined(variables[OAUTH_ENV.upstreamIssuer])).toBe(`https://\${${ids.userPool}.ProviderName}`);
  });
});

describe('secrets', () => {
  it('keep the client secret in Secrets Manager, copied from Cognito at deployment with the response kept out of logs', () => {
    const secret = template.toJSON()['Resources'][ids.clientSecret] as TemplateResource;
    expect(secret.Type).toBe('AWS::SecretsManager::Secret');
    const [readerId] = secret.Properties['SecretString']['Fn::GetAtt'] as [string, string];
    expect(secret.Properties['SecretString']['Fn::GetAtt'][1]).toBe('UserPoolClient.ClientSecret');
    const reader = template.toJSON()['Resources'][readerId] as TemplateResource;
    expect(reader.Type).toBe('Custom::DescribeCognitoUserPoolClient');
    const call = joined(reader.Properties['Create']);
    expect(call).toContain(`"ClientId":"\${${ids.client}}"`);
    expect(JSON.parse(call.replace(/\$\{[^}]+\}/g, 'x'))).toMatchObject({ logApiResponseData: false });
  });

  it('let only the proxy function’s role read the client secret (every IAM policy in the template scanned)', () => {
    for (const action of ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'])
      expect(rolesAllowed(template, action, ids.clientSecret), action).toEqual([ids.oauthRole]);
    template.resourceCountIs('AWS::SecretsManager::ResourcePolicy', 0);
  });

  it('generate a 64-character signing key without punctuation', () => {
    expect((template.toJSON()['Resources'][ids.signingKey] as TemplateResource).Properties).toMatchObject({
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false },
    });
  });

  it('let the proxy and the MCP function read the signing key, and nothing else', () => {
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', ids.signingKey)).toEqual(
      [ids.mcpRole, ids.oauthRole].sort(),
    );
  });

  it('let the MCP function read the signing key but not the client secret', () => {
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', ids.signingKey)).toContain(ids.mcpRole);
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', ids.clientSecret)).not.toContain(ids.mcpRole);
  });

  it('appear in no function’s environment but as ARNs', () => {
    const secretIds = [ids.clientSecret, ids.signingKey];
    const readerIds = Object.keys(resources(template, 'Custom::DescribeCognitoUserPoolClient'));
    for (const [functionId, fn] of Object.entries(resources(template, 'AWS::Lambda::Function'))) {
      for (const [name, value] of Object.entries(
        (fn.Properties['Environment']?.Variables ?? {}) as Record<string, unknown>,
      )) {
        const text = JSON.stringify(value);
        for (const secretId of secretIds) {
          // `Ref` of a secret is its ARN; a dynamic reference or any other use would put the value there.
          if (text.includes(`"${secretId}"`)) expect(value, `${functionId} ${name}`).toEqual({ Ref: secretId });
        }
        for (const readerId of readerIds) expect(text, `${functionId} ${name}`).not.toContain(readerId);
        expect(text, `${functionId} ${name}`).not.toContain('UserPoolClient.ClientSecret');
      }
    }
    expect(environmentOf(template, ids.oauthFunction)).toMatchObject({
      [OAUTH_ENV.upstreamClientSecretArn]: { Ref: ids.clientSecret },
      [OAUTH_ENV.signingKeySecretArn]: { Ref: ids.signingKey },
    });
  });

  it('are retained with the stack’s other data by default', () => {
    for (const id of [ids.clientSecret, ids.signingKey, ids.table])
      expect(template.toJSON()['Resources'][id]).toMatchObject({ DeletionPolicy: 'Retain' });
  });
});

describe('table', () => {
  it('is keyed by the store’s partition key, on demand, with TTL, point-in-time recovery and encryption at rest', () => {
    expect((template.toJSON()['Resources'][ids.table] as TemplateResource).Properties).toEqual({
      KeySchema: [{ AttributeName: OAUTH_PARTITION_KEY, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: OAUTH_PARTITION_KEY, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: OAUTH_TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is open to the proxy function alone, for the item actions of its store, and the proxy to no other table', () => {
    const onTable = everyStatement(template).filter(({ statement }) =>
      JSON.stringify(statement.Resource).includes(`"${ids.table}"`),
    );
    expect(onTable).toEqual([
      {
        roles: [ids.oauthRole],
        statement: {
          Effect: 'Allow',
          Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
        },
      },
    ]);
    const proxyDynamoDb = everyStatement(template).filter(
      ({ roles, statement }) =>
        roles.includes(ids.oauthRole) && [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );
    expect(proxyDynamoDb).toEqual(onTable);
  });

  it('grants every DynamoDB call the OAuth store makes', () => {
    const granted = [onTableActions()].flat();
    for (const action of dynamoDbActionsOf('lambda/oauth/dynamodb-oauth-store.ts')) expect(granted).toContain(action);
  });

  it('takes the endpoint’s customer managed key, which the proxy function may use', () => {
    const keyed = testStack();
    const key = new kms.Key(keyed, 'Key', { enableKeyRotation: true });
    const endpoint = new McpTaskEndpoint(keyed, 'Endpoint', { tableEncryptionKey: key });
    const keyedTemplate = Template.fromStack(keyed);
    const tableId = logicalId(keyed, endpoint.oauthProxy!.table);
    expect(keyedTemplate.toJSON()['Resources'][tableId].Properties['SSESpecification']).toMatchObject({
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [logicalId(keyed, key), 'Arn'] },
    });
    expect(rolesAllowed(keyedTemplate, 'kms:Decrypt', logicalId(keyed, key))).toContain(
      logicalId(keyed, endpoint.oauthProxy!.handler.role),
    );
  });

  function onTableActions(): string[] {
    return everyStatement(template)
      .filter(({ statement }) => JSON.stringify(statement.Resource).includes(`"${ids.table}"`))
      .flatMap(({ statement }) => [statement.Action].flat());
  }
});

// OAuthProxy: the endpoint's own OAuth 2.1 authorization server in front of the Cognito user pool (as FastMCP's
// OAuthProxy is), because Cognito publishes only OpenID discovery, without PKCE support, a registration endpoint or
// Client ID Metadata Documents, and claude.ai, ChatGPT, Cursor and VS Code need them to connect. Its runtime is
// lambda/handlers/oauth-http.ts; this construct deploys it: its table, the one confidential Cognito client it signs
// people in with, that client's secret and the access-token signing key in Secrets Manager (named to the functions by
// ARN, never by value), the function, and its public routes on the REST API.
import { Duration, Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { OAUTH_ENV } from '../../lambda/contract/environment-names.js';
import { OAUTH_PATHS } from '../../lambda/contract/oauth-paths.js';
import { awaitCustomResourceLogGroup } from '../operations/custom-resource-log-group.js';
import { HandlerFunction, projectPath } from '../handlers/handler-function.js';
import {
  DEFAULT_ALLOWED_REDIRECT_URIS,
  DEFAULT_CLIENT_ID_METADATA_DOCUMENTS,
  DEFAULT_DYNAMIC_CLIENT_REGISTRATION,
  DEFAULT_LOG_RETENTION,
  DEFAULT_REGISTRATIONS_PER_DAY,
  DEFAULT_REGISTRATIONS_PER_SOURCE_PER_HOUR,
  DEFAULT_REMOVAL_POLICY,
  OAUTH_PROXY_UPSTREAM_REFRESH_TOKEN_VALIDITY,
  OAUTH_SIGNING_KEY_LENGTH,
} from '../props/mcp-task-endpoint-defaults.js';
import { createOAuthTable } from '../tables/task-table.js';
import { acknowledgeCustomResourceProvider } from '../operations/nag-acknowledgements.js';

/** A path of the runtime's OAUTH_PATHS as API Gateway names a resource: relative to the stage, no leading '/'. */
const resourcePath = (path: string): string => path.slice(1);

/** Where the upstream provider sends the person back to, relative to the issuer. */
export const OAUTH_CALLBACK_PATH = resourcePath(OAUTH_PATHS.callback);

/**
 * The proxy's routes, relative to the issuer, each with the methods it serves; every route also takes OPTIONS, which
 * the function answers (CORS for browser clients). `registration` routes exist only with Dynamic Client Registration
 * on.
 */
export const OAUTH_PROXY_ROUTES = [
  { path: resourcePath(OAUTH_PATHS.authorizationServerMetadata), methods: ['GET'] },
  { path: resourcePath(OAUTH_PATHS.openIdConfiguration), methods: ['GET'] },
  { path: resourcePath(OAUTH_PATHS.protectedResourceMetadata), methods: ['GET'] },
  { path: resourcePath(OAUTH_PATHS.jwks), methods: ['GET'] },
  // GET asks the person (the consent page); POST takes their answer.
  { path: resourcePath(OAUTH_PATHS.authorize), methods: ['GET', 'POST'] },
  { path: OAUTH_CALLBACK_PATH, methods: ['GET'] },
  { path: resourcePath(OAUTH_PATHS.token), methods: ['POST'] },
  { path: resourcePath(OAUTH_PATHS.register), methods: ['POST'], registration: true },
] as const satisfies readonly { path: string; methods: readonly ('GET' | 'POST')[]; registration?: boolean }[];

/** The item actions the proxy's store performs (TransactWriteItems needs its members' actions, nothing of its own). */
const OAUTH_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

export interface OAuthProxyProps {
  /** The REST API the proxy's routes are added to, at the root of its stage. */
  readonly api: apigw.RestApi;
  /**
   * The issuer: the stage's base URL, `https://<api>.execute-api.<region>.<suffix>/<stage>`, without a trailing
   * slash. Every URL the proxy hands out starts with it.
   */
  readonly issuer: string;
  /** The MCP URL: the one resource (RFC 8707) the proxy mints tokens for. */
  readonly resource: string;
  /** The user pool people sign in to. It must have a hosted domain: its sign-in page is where the proxy sends them. */
  readonly userPool: cognito.IUserPool;
  /** The user pool's issuer URL, `https://cognito-idp.<region>.amazonaws.com/<user pool ID>` (CognitoAuth.issuerUrl). */
  readonly upstreamIssuer: string;
  /** Accept Client ID Metadata Document URLs as client IDs. @default true */
  readonly clientIdMetadataDocuments?: boolean;
  /** Serve `/register` (RFC 7591). @default true */
  readonly dynamicClientRegistration?: boolean;
  /**
   * Redirect URI patterns clients may use (see lambda/contract/redirect-uri-policy.ts).
   * @default DEFAULT_ALLOWED_REDIRECT_URIS
   */
  readonly allowedRedirectUris?: readonly string[];
  /** @default 10 */
  readonly registrationsPerSourcePerHour?: number;
  /** @default 1000 */
  readonly registrationsPerDay?: number;
  /** Applies to the table, the secrets and the log group. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Customer managed KMS key for the table. @default - the AWS managed key for DynamoDB */
  readonly tableEncryptionKey?: kms.IKey;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** Active X-Ray tracing on the function. @default false */
  readonly tracing?: boolean;
}

export class OAuthProxy extends Construct {
  /** The issuer, the stage's base URL: MCP clients discover it from the protected resource metadata. */
  public readonly issuer: string;
  /** Client registrations, pending sign-ins, codes and refresh tokens (hashed), registration counters; TTL-swept. */
  public readonly table: dynamodb.Table;
  /**
   * The one confidential Cognito app client the proxy signs people in with (authorization code grant, `openid
   * email`): every MCP client's sign-in goes through it, whatever client ID the proxy gave that MCP client.
   */
  public readonly upstreamClient: cognito.UserPoolClient;
  /** That client's secret, readable by the proxy function alone. */
  public readonly upstreamClientSecret: secretsmanager.Secret;
  /** Signs the access tokens the proxy issues (HS256): read by the proxy function and the MCP function. */
  public readonly signingKey: secretsmanager.Secret;
  /** Serves the authorization server (lambda/handlers/oauth-http.ts). */
  public readonly function: lambda.Function;
  public readonly handler: HandlerFunction;
  /** The public methods of the proxy's routes, OPTIONS included. */
  public readonly methods: readonly apigw.Method[];
  /** The method that serves the RFC 9728 protected resource metadata (`GET /.well-known/oauth-protected-resource`). */
  public readonly resourceMetadataMethod: apigw.Method;

  constructor(scope: Construct, id: string, props: OAuthProxyProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? DEFAULT_REMOVAL_POLICY;
    const dynamicClientRegistration = props.dynamicClientRegistration ?? DEFAULT_DYNAMIC_CLIENT_REGISTRATION;
    this.issuer = props.issuer;

    this.table = createOAuthTable(this, 'Table', {
      removalPolicy,
      ...(props.tableEncryptionKey ? { encryptionKey: props.tableEncryptionKey } : {}),
    });
    this.upstreamClient = new cognito.UserPoolClient(this, 'UpstreamClient', {
      userPool: props.userPool,
      generateSecret: true,
      // Listing one flow is what makes CDK set ALLOW_REFRESH_TOKEN_AUTH alone beside it (an empty list would leave
      // Cognito's defaults, custom auth included); SRP with this client needs its secret, which only the proxy reads.
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        // Only who the person is: what they may do here is the proxy's own scope on its own tokens.
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL],
        callbackUrls: [`${props.issuer}/${OAUTH_CALLBACK_PATH}`],
      },
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: OAUTH_PROXY_UPSTREAM_REFRESH_TOKEN_VALIDITY,
    });
    this.upstreamClientSecret = new secretsmanager.Secret(this, 'UpstreamClientSecret', {
      description: "Client secret of the Cognito app client the MCP endpoint's OAuth proxy signs people in with",
      // Read from Cognito at deployment (DescribeUserPoolClient, its response kept out of the provider's logs).
      secretStringValue: this.upstreamClient.userPoolClientSecret,
      removalPolicy,
    });
    this.signingKey = new secretsmanager.Secret(this, 'SigningKey', {
      description: "Signs the access tokens the MCP endpoint's OAuth proxy issues",
      generateSecretString: {
        passwordLength: OAUTH_SIGNING_KEY_LENGTH,
        excludePunctuation: true,
        includeSpace: false,
      },
      removalPolicy,
    });

    this.handler = new HandlerFunction(this, 'Handler', {
      entry: projectPath('lambda/handlers/oauth-http.ts'),
      description: 'OAuth authorization server of the MCP endpoint, in front of the Cognito user pool',
      tracing: props.tracing ?? false,
      logRetention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy,
      environment: {
        [OAUTH_ENV.issuer]: props.issuer,
        [OAUTH_ENV.resource]: props.resource,
        [OAUTH_ENV.tableName]: this.table.tableName,
        [OAUTH_ENV.signingKeySecretArn]: this.signingKey.secretArn,
        [OAUTH_ENV.upstreamIssuer]: props.upstreamIssuer,
        [OAUTH_ENV.upstreamClientId]: this.upstreamClient.userPoolClientId,
        [OAUTH_ENV.upstreamClientSecretArn]: this.upstreamClientSecret.secretArn,
        [OAUTH_ENV.allowedRedirectUris]: Stack.of(this).toJsonString([
          ...(props.allowedRedirectUris ?? DEFAULT_ALLOWED_REDIRECT_URIS),
        ]),
        [OAUTH_ENV.clientIdMetadataDocuments]: String(
          props.clientIdMetadataDocuments ?? DEFAULT_CLIENT_ID_METADATA_DOCUMENTS,
        ),
        [OAUTH_ENV.dynamicClientRegistration]: String(dynamicClientRegistration),
        [OAUTH_ENV.registrationsPerSourcePerHour]: String(
          props.registrationsPerSourcePerHour ?? DEFAULT_REGISTRATIONS_PER_SOURCE_PER_HOUR,
        ),
        [OAUTH_ENV.registrationsPerDay]: String(props.registrationsPerDay ?? DEFAULT_REGISTRATIONS_PER_DAY),
      },
    });
    this.function = this.handler.function;
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: OAUTH_TABLE_ACTIONS,
      resourceArns: [this.table.tableArn],
    });
    this.table.encryptionKey?.grantEncryptDecrypt(this.function);
    this.upstreamClientSecret.grantRead(this.function);
    this.signingKey.grantRead(this.function);

    this.methods = this.addRoutes(props.api, dynamicClientRegistration);
    this.resourceMetadataMethod = this.methods.find(
      (method) => method.resource.path === OAUTH_PATHS.protectedResourceMetadata && method.httpMethod === 'GET',
    )!;
    this.acknowledgeFindings();
  }

  /**
   * Lets `grantee` check the proxy's access tokens: read the signing key. Give it the key's ARN, the issuer and the
   * resource (OAUTH_ENV) too.
   */
  public grantTokenVerification(grantee: iam.IGrantable): iam.Grant {
    return this.signingKey.grantRead(grantee);
  }

  /** Every route and its OPTIONS to the function (a buffered Lambda proxy: its answers are small). */
  private addRoutes(api: apigw.RestApi, dynamicClientRegistration: boolean): apigw.Method[] {
    const integration = new apigw.LambdaIntegration(this.function, { proxy: true, allowTestInvoke: false });
    const reason =
      'An OAuth authorization server endpoint: clients call it before they have a token (metadata discovery, ' +
      '/authorize, the sign-in callback, /token, /register), and it authenticates its callers itself (PKCE, client ' +
      'credentials, registration limits). OPTIONS answers CORS preflights.';
    return OAUTH_PROXY_ROUTES.filter((route) => dynamicClientRegistration || !('registration' in route)).flatMap(
      (route) => {
        const resource = api.root.resourceForPath(route.path);
        return [...route.methods, 'OPTIONS'].map((httpMethod) => {
          const method = resource.addMethod(httpMethod, integration, {
            authorizationType: apigw.AuthorizationType.NONE,
          });
          // cdk-nag asks OPTIONS methods for no Cognito authorizer (COG4), only for some authorization (APIG4).
          Validations.of(method).acknowledge(
            { id: 'AwsSolutions-APIG4', reason },
            ...(httpMethod === 'OPTIONS' ? [] : [{ id: 'AwsSolutions-COG4', reason }]),
          );
          return method;
        });
      },
    );
  }

  private acknowledgeFindings(): void {
    Validations.of(this.signingKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the signing key invalidates every access token in flight (clients refresh them, about an hour ' +
        'at most); rotate by putting a new value: function instances read it once, so redeploy to reach them all.',
    });
    Validations.of(this.upstreamClientSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The value is the secret Cognito generated for the app client, which Secrets Manager cannot rotate; ' +
        'rotate it by replacing the client (a new construct ID) and redeploying.',
    });
    // The deployment-time reader of the client secret: CDK's shared AwsCustomResource provider in this stack.
    acknowledgeCustomResourceProvider(this);
    awaitCustomResourceLogGroup(this);
  }
}

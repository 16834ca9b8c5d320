// The OAuth side of the endpoint: a Cognito user pool (new or existing), a resource server whose scope machine tokens
// carry, an optional machine client, and a hosted domain for the OAuth endpoints and the sign-in page. Without the
// OAuth proxy (`oauthProxy: false`), also the interactive PKCE client MCP clients use directly and the API Gateway
// authorizer that checks their tokens; with it, the proxy (oauth-proxy.ts) signs people in through its own client
// and the MCP function checks tokens.
import { Aws, Duration, Names, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { McpTaskEndpointProps } from '../props/mcp-task-endpoint-props.js';
import {
  DEFAULT_OAUTH_CALLBACK_URLS,
  DEFAULT_OAUTH_PROXY,
  DEFAULT_RESOURCE_SERVER_IDENTIFIER,
  defaultUserPoolProps,
  OAUTH_SCOPE_NAME,
} from '../props/mcp-task-endpoint-defaults.js';

/** The endpoint's auth props (documented there), plus the removal policy it settled on. */
export type CognitoAuthProps = Pick<
  McpTaskEndpointProps,
  | 'existingUserPoolObj'
  | 'userPoolProps'
  | 'cognitoDomainPrefix'
  | 'resourceServerIdentifier'
  | 'oauthCallbackUrls'
  | 'machineClient'
  | 'oauthProxy'
> & { readonly removalPolicy: RemovalPolicy };

export class CognitoAuth extends Construct {
  public readonly userPool: cognito.IUserPool;
  public readonly resourceServer: cognito.UserPoolResourceServer;
  /**
   * Public client for people: authorization code grant with PKCE (MCP Inspector, desktop clients). Absent with the
   * OAuth proxy, whose own confidential client (`OAuthProxy.upstreamClient`) signs people in instead.
   */
  public readonly userPoolClient?: cognito.UserPoolClient;
  /** Confidential client for programs: client credentials grant; the task owner is its client ID. */
  public readonly machineClient?: cognito.UserPoolClient;
  /** Hosted domain serving /oauth2/authorize and /oauth2/token; absent for an existing pool without a prefix. */
  public readonly domain?: cognito.UserPoolDomain;
  /**
   * Checks Cognito access tokens on /mcp at API Gateway. Absent with the OAuth proxy: its tokens are not Cognito's,
   * so the MCP function checks every token itself.
   */
  public readonly authorizer?: apigw.CognitoUserPoolsAuthorizer;
  /** The scope every Cognito access token for this API carries, `<resource server>/invoke`. */
  public readonly scope: string;
  /**
   * The user pool's issuer, `https://cognito-idp.<region>.amazonaws.com/<user pool ID>`: the authorization server
   * named in the protected resource metadata without the OAuth proxy, the upstream provider with it.
   */
  public readonly issuerUrl: string;

  constructor(scope: Construct, id: string, props: CognitoAuthProps) {
    super(scope, id);
    if (props.existingUserPoolObj) {
      this.userPool = props.existingUserPoolObj;
    } else {
      const userPool = new cognito.UserPool(this, 'UserPool', {
        ...defaultUserPoolProps(props.removalPolicy),
        ...props.userPoolProps,
      });
      Validations.of(userPool).acknowledge({
        id: 'AwsSolutions-COG8',
        reason:
          'The Plus feature plan (threat protection) is billed per monthly active user; opt in with ' +
          'userPoolProps.featurePlan. MFA is required either way.',
      });
      this.userPool = userPool;
    }
    const invoke = new cognito.ResourceServerScope({
      scopeName: OAUTH_SCOPE_NAME,
      scopeDescription: 'Call the MCP tools and manage your own tasks',
    });
    this.resourceServer = this.userPool.addResourceServer('ResourceServer', {
      identifier: props.resourceServerIdentifier ?? DEFAULT_RESOURCE_SERVER_IDENTIFIER,
      scopes: [invoke],
    });
    const invokeScope = cognito.OAuthScope.resourceServer(this.resourceServer, invoke);
    this.scope = invokeScope.scopeName;
    const oauthProxy = props.oauthProxy ?? DEFAULT_OAUTH_PROXY;
    if (!oauthProxy) this.userPoolClient = this.interactiveClient(invokeScope, props);
    if (props.machineClient) {
      this.machineClient = this.userPool.addClient('MachineClient', {
        generateSecret: true,
        oAuth: { flows: { clientCredentials: true }, scopes: [invokeScope] },
        supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
        accessTokenValidity: Duration.hours(1),
      });
      this.machineClient.node.addDependency(this.resourceServer);
    }
    const domainPrefix =
      props.cognitoDomainPrefix ?? (props.existingUserPoolObj ? undefined : this.derivedDomainPrefix());
    if (domainPrefix !== undefined)
      this.domain = this.userPool.addDomain('Domain', { cognitoDomain: { domainPrefix } });
    this.issuerUrl = `https://${this.userPool.userPoolProviderName}`;
    // An authorizer no method uses fails synth, so it exists only where /mcp uses it.
    if (!oauthProxy) {
      this.authorizer = new apigw.CognitoUserPoolsAuthorizer(this, 'Authorizer', {
        cognitoUserPools: [this.userPool],
        identitySource: apigw.IdentitySource.header('Authorization'),
      });
    }
  }

  private interactiveClient(invokeScope: cognito.OAuthScope, props: CognitoAuthProps): cognito.UserPoolClient {
    const client = this.userPool.addClient('InteractiveClient', {
      generateSecret: false,
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, invokeScope],
        callbackUrls: [...(props.oauthCallbackUrls ?? DEFAULT_OAUTH_CALLBACK_URLS)],
      },
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
    });
    client.node.addDependency(this.resourceServer);
    return client;
  }

  /**
   * Hosted domain prefixes are global per region: derive one from this construct's unique path plus the account ID.
   * Cognito refuses prefixes containing aws, amazon or cognito, so those words are dropped.
   */
  private derivedDomainPrefix(): string {
    const unique = Names.uniqueResourceName(this, { maxLength: 64 })
      .toLowerCase()
      .replace(/aws|amazon|cognito/g, '')
      .replace(/[^a-z0-9]/g, '');
    return `${unique.slice(-40)}-${Aws.ACCOUNT_ID}`;
  }
}

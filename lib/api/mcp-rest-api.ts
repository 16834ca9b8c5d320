// The REST API in front of the MCP function: /mcp (POST, GET, DELETE) as a streaming Lambda proxy, stage throttling
// and JSON access logs. With Cognito auth, also the authorizer on /mcp, the RFC 9728 metadata route and the 401 that
// points at it; with the OAuth proxy, /mcp is open at API Gateway (the function checks tokens and answers 401) and
// the proxy adds its own routes, the metadata among them (lib/auth/oauth-proxy.ts).
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { OAUTH_PATHS } from '../../lambda/contract/oauth-paths.js';
import { UNAUTHORIZED_ERROR_CODE } from '../../lambda/contract/unauthorized-error.js';
import type { CognitoAuth } from '../auth/cognito-auth.js';

export const MCP_PATH = 'mcp';
/** RFC 9728's document, relative to the stage (where the OAuth proxy serves it too). */
export const RESOURCE_METADATA_PATH = OAUTH_PATHS.protectedResourceMetadata.slice(1);
export const MCP_METHODS = ['POST', 'GET', 'DELETE'] as const;

export interface McpRestApiProps {
  readonly handler: lambda.IFunction;
  /** Up to 15 minutes: a streaming integration is not bound by the 29-second buffered limit. */
  readonly integrationTimeout: Duration;
  readonly stageName: string;
  readonly throttlingRateLimit: number;
  readonly throttlingBurstLimit: number;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly tracing: boolean;
  readonly executionLoggingLevel?: apigw.MethodLoggingLevel;
  readonly corsAllowOrigins?: readonly string[];
  readonly webAclArn?: string;
  /**
   * Create the account's API Gateway CloudWatch Logs role (an account-wide setting; the role is retained).
   * @default false
   */
  readonly createApiGatewayAccountRole?: boolean;
  /** Cognito auth: its authorizer checks tokens on /mcp. Without it or `oauthProxy`, every method is open. */
  readonly auth?: CognitoAuth;
  /**
   * The endpoint is its own authorization server (OAuthProxy adds its routes to this API): /mcp is open at API
   * Gateway, because the MCP function checks every token itself, and the proxy serves the protected resource
   * metadata. Takes the place of `auth`'s authorizer.
   * @default false
   */
  readonly oauthProxy?: boolean;
}

export class McpRestApi extends Construct {
  public readonly api: apigw.RestApi;
  public readonly accessLogGroup: logs.LogGroup;
  public readonly mcpResource: apigw.Resource;
  public readonly mcpMethods: apigw.Method[];
  /**
   * The stage's base URL, `https://<api>.execute-api.<region>.<suffix>/<stage>`: the OAuth proxy's issuer. Built from
   * the API ID rather than the stage, so methods, gateway responses and functions can use it without a cycle.
   */
  public readonly stageUrl: string;
  /** The MCP endpoint clients connect to. */
  public readonly mcpUrl: string;
  /** Where the OAuth protected resource metadata is served; only with auth on. */
  public readonly resourceMetadataUrl?: string;
  /** The mock method that answers the metadata with Cognito auth; with the OAuth proxy it is the proxy's route. */
  public readonly resourceMetadataMethod?: apigw.Method;
  public readonly webAclAssociation?: wafv2.CfnWebACLAssociation;

  constructor(scope: Construct, id: string, props: McpRestApiProps) {
    super(scope, id);
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    const cors = props.corsAllowOrigins && props.corsAllowOrigins.length > 0 ? [...props.corsAllowOrigins] : undefined;
    this.api = new apigw.RestApi(this, 'Api', {
      restApiName: `${Stack.of(this).stackName}-mcp`,
      description: 'MCP endpoint (Streamable HTTP): Step Functions state machines as tools, run as MCP tasks',
      // Regional: an edge-optimized endpoint drops an idle response stream after 30 s, a regional one after 5 minutes.
      endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
      // The account-level role API Gateway logs through is only created on request: it is an account-wide setting.
      cloudWatchRole: props.createApiGatewayAccountRole ?? false,
      ...(props.createApiGatewayAccountRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: props.stageName,
        throttlingRateLimit: props.throttlingRateLimit,
        throttlingBurstLimit: props.throttlingBurstLimit,
        accessLogDestination: new apigw.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: accessLogFormat(),
        tracingEnabled: props.tracing,
        metricsEnabled: true,
        ...(props.executionLoggingLevel ? { loggingLevel: props.executionLoggingLevel, dataTraceEnabled: false } : {}),
      },
    });
    const stack = Stack.of(this);
    this.stageUrl = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stageName}`;
    this.mcpUrl = `${this.stageUrl}/${MCP_PATH}`;

    this.mcpResource = this.api.root.addResource(MCP_PATH);
    const integration = new apigw.LambdaIntegration(props.handler, {
      proxy: true,
      responseTransferMode: apigw.ResponseTransferMode.STREAM,
      timeout: props.integrationTimeout,
      allowTestInvoke: false,
    });
    // With the OAuth proxy, Cognito's authorizer could not verify the proxy's tokens: the function checks them.
    const auth = props.oauthProxy ? undefined : props.auth;
    const methodOptions: apigw.MethodOptions = auth?.authorizer
      ? {
          authorizationType: apigw.AuthorizationType.COGNITO,
          authorizer: auth.authorizer,
          authorizationScopes: [auth.scope],
        }
      : { authorizationType: apigw.AuthorizationType.NONE };
    this.mcpMethods = MCP_METHODS.map((method) => this.mcpResource.addMethod(method, integration, methodOptions));
    if (cors) {
      this.mcpResource.addCorsPreflight({
        allowOrigins: cors,
        allowMethods: [...MCP_METHODS, 'OPTIONS'],
        allowHeaders: [
          'Content-Type',
          'Accept',
          'Authorization',
          'Mcp-Session-Id',
          'Mcp-Protocol-Version',
          'Mcp-Method',
          'Mcp-Name',
          'Last-Event-ID',
        ],
        exposeHeaders: ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'WWW-Authenticate'],
        maxAge: Duration.hours(1),
      });
    }

    if (auth || props.oauthProxy) this.resourceMetadataUrl = `${this.stageUrl}/${RESOURCE_METADATA_PATH}`;
    if (auth) {
      this.resourceMetadataMethod = this.addResourceMetadataRoute(auth, cors !== undefined);
      this.addUnauthorizedResponses(auth, cors !== undefined);
    }
    if (props.webAclArn) {
      this.webAclAssociation = new wafv2.CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.api.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    }
    this.acknowledgeFindings(props);
  }

  /**
   * RFC 9728 protected resource metadata, answered by API Gateway itself (a mock integration): public, static, and
   * cheap. MCP clients read it to find the authorization server (the user pool's issuer) and the scope to request.
   */
  private addResourceMetadataRoute(auth: CognitoAuth, cors: boolean): apigw.Method {
    const document = Stack.of(this).toJsonString({
      resource: this.mcpUrl,
      authorization_servers: [auth.issuerUrl],
      bearer_methods_supported: ['header'],
      scopes_supported: [auth.scope],
      resource_name: 'MCP tasks on AWS Step Functions',
    });
    const headers: Record<string, string> = { 'method.response.header.Cache-Control': "'max-age=300'" };
    if (cors) headers['method.response.header.Access-Control-Allow-Origin'] = "'*'";
    const resource = this.api.root.resourceForPath(RESOURCE_METADATA_PATH);
    const method = resource.addMethod(
      'GET',
      new apigw.MockIntegration({
        requestTemplates: { 'application/json': '{"statusCode": 200}' },
        passthroughBehavior: apigw.PassthroughBehavior.NEVER,
        integrationResponses: [
          { statusCode: '200', responseTemplates: { 'application/json': document }, responseParameters: headers },
        ],
      }),
      {
        authorizationType: apigw.AuthorizationType.NONE,
        methodResponses: [
          {
            statusCode: '200',
            responseParameters: Object.fromEntries(Object.keys(headers).map((header) => [header, true])),
          },
        ],
      },
    );
    const reason =
      'RFC 9728 protected resource metadata must be readable without a token: clients fetch it ' +
      'to learn how to get one.';
    Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason }, { id: 'AwsSolutions-COG4', reason });
    return method;
  }

  /** The MCP authorization spec's 401: `WWW-Authenticate` names the metadata document. */
  private addUnauthorizedResponses(auth: CognitoAuth, cors: boolean): void {
    const metadata = `resource_metadata="${this.resourceMetadataUrl}"`;
    const corsHeaders: Record<string, string> = cors
      ? { 'Access-Control-Allow-Origin': "'*'", 'Access-Control-Expose-Headers': "'WWW-Authenticate'" }
      : {};
    const body = (code: number) => ({
      'application/json': `{"jsonrpc":"2.0","id":null,"error":{"code":${code},"message":$context.error.messageString}}`,
    });
    this.api.addGatewayResponse('Unauthorized', {
      type: apigw.ResponseType.UNAUTHORIZED,
      statusCode: '401',
      responseHeaders: { 'WWW-Authenticate': `'Bearer ${metadata}'`, ...corsHeaders },
      templates: body(UNAUTHORIZED_ERROR_CODE),
    });
    this.api.addGatewayResponse('AccessDenied', {
      type: apigw.ResponseType.ACCESS_DENIED,
      statusCode: '403',
      responseHeaders: {
        'WWW-Authenticate': `'Bearer error="insufficient_scope", scope="${auth.scope}", ${metadata}'`,
        ...corsHeaders,
      },
      templates: body(UNAUTHORIZED_ERROR_CODE),
    });
  }

  private acknowledgeFindings(props: McpRestApiProps): void {
    const acknowledge = Validations.of(this.api);
    const accountRole = this.api.node.tryFindChild('CloudWatchRole');
    if (accountRole) {
      Validations.of(accountRole).acknowledge({
        id:
          'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/' +
          'service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The API Gateway account role must write to log groups of every API in the account and ' +
          'region; AWS maintains this managed policy for exactly that.',
      });
    }
    acknowledge.acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Bodies are JSON-RPC messages that the MCP SDK validates in the function; an API Gateway ' +
        'model cannot express them usefully.',
    });
    if (!props.executionLoggingLevel) {
      acknowledge.acknowledge({
        id: 'AwsSolutions-APIG6',
        reason:
          'Execution logging is opt-in (executionLoggingLevel): it logs per request at a cost the ' +
          'team decides on; JSON access logs are always on. Both need the account-level API Gateway ' +
          'CloudWatch Logs role (docs/deploy.md prerequisites, or createApiGatewayAccountRole).',
      });
    }
    if (!props.webAclArn) {
      acknowledge.acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'AWS WAF is opt-in (webAclArn), as a web ACL has a monthly cost. Residual risk without it: ' +
          'stage throttling is one bucket shared by all callers, so one token holder can use it all; ' +
          'per-client limits need a WAF rate-based rule (docs/deploy.md).',
      });
    }
    if (props.oauthProxy || !props.auth) {
      const reason = props.oauthProxy
        ? 'The endpoint is its own OAuth authorization server (oauthProxy): the MCP function verifies every bearer ' +
          "token (its signature, issuer, audience and expiry, or a machine client's Cognito token) and answers 401 " +
          "with WWW-Authenticate itself; API Gateway's Cognito authorizer cannot verify the proxy's tokens."
        : 'The endpoint was deployed open on purpose (openEndpoint: true); synth warns about it.';
      for (const method of this.mcpMethods)
        Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason }, { id: 'AwsSolutions-COG4', reason });
    }
  }
}

/** One JSON object per request, with the owner (token subject) so a task can be traced to its caller. */
function accessLogFormat(): apigw.AccessLogFormat {
  const field = apigw.AccessLogField;
  return apigw.AccessLogFormat.custom(
    JSON.stringify({
      requestId: field.contextRequestId(),
      requestTime: field.contextRequestTime(),
      sourceIp: field.contextIdentitySourceIp(),
      httpMethod: field.contextHttpMethod(),
      resourcePath: field.contextResourcePath(),
      status: field.contextStatus(),
      responseLength: field.contextResponseLength(),
      responseLatency: field.contextResponseLatency(),
      integrationLatency: field.contextIntegrationLatency(),
      integrationStatus: field.contextIntegrationStatus(),
      errorMessage: field.contextErrorMessage(),
      authorizerError: field.contextAuthorizerError(),
      owner: field.contextAuthorizerClaims('sub'),
    }),
  );
}

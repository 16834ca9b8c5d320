// A test page's host for the task view, run in Chromium (bundled by task-view-browser.ts): ext-apps' host-side bridge
// (AppBridge) renders the view's HTML in a sandboxed iframe, as a host with MCP Apps does, and forwards the view's tool
// calls to `window.callServerTool`, which the test binds to an MCP client of the server.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/client';

interface HostWindow {
  callServerTool(params: CallToolRequest['params']): Promise<CallToolResult>;
  openTaskView(html: string, tool: Tool, args: Record<string, unknown>): Promise<void>;
  sendToolResult(result: CallToolResult): Promise<void>;
}
const host = window as unknown as HostWindow;

let bridge: AppBridge | undefined;

host.openTaskView = async (html, tool, args) => {
  const iframe = document.createElement('iframe');
  // Scripts, but no same origin: the view reaches nothing of this page but its messages.
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.width = '560px';
  iframe.style.border = '1px solid #ccc';
  iframe.srcdoc = html;
  document.body.append(iframe);
  bridge = new AppBridge(
    null,
    { name: 'task-view-test-host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext: { toolInfo: { tool }, displayMode: 'inline', theme: 'light' } },
  );
  bridge.oncalltool = (params) => host.callServerTool(params);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge!.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
};

host.sendToolResult = async (result) => {
  await bridge!.sendToolResult(result);
};

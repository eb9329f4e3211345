/** The payer's page (/pay/...), as a browser (or anything else) would call it: no redirect followed. */
export async function payPage(baseUrl: string, method: 'GET' | 'POST', path: string, init: { body?: string; type?: string } = {}) {
  const res = await fetch(`${baseUrl}/pay${path}`, {
    method,
    redirect: 'manual',
    ...(init.type ? { headers: { 'content-type': init.type } } : {}),
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  return { status: res.status, location: res.headers.get('location'), type: res.headers.get('content-type'), text: await res.text() };
}

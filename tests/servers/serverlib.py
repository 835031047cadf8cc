"""serverlib.py - what the test servers treeweb.py and changeweb.py share:
send_body() answers a request with a status and a body, and
announce_and_serve(), once they are bound, prints the port, writes it
atomically to the port file that tests/integration/lib.sh waits for, ends
the server by itself after a lifetime (a test that dies leaves no server
behind), and serves."""
import os
import threading


def announce_and_serve(srv, port_file, lifetime):
    port = srv.server_address[1]
    print(port, flush=True)
    if port_file:
        with open(port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(port_file + ".tmp", port_file)
    threading.Timer(lifetime, lambda: os._exit(0)).start()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def send_body(handler, status, body):
    """Answer with status and body (text/html when 200); the status, or 0
    when the client went away before it was written."""
    handler.send_response(status)
    handler.send_header("Content-Type", "text/html" if status == 200 else "text/plain")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    try:
        handler.wfile.write(body)
        handler.wfile.flush()
    except OSError:
        return 0
    return status

"""announce.py - what the test servers (treeweb.py, changeweb.py) do once
they are bound: print the port, write it atomically to the port file that
tests/integration/lib.sh waits for, end by themselves after a lifetime (a
test that dies leaves no server behind), and serve."""
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

"""The sockets: the websockets adapter, the listening socket, plain HTTP
on kept-alive connections and the web client's files.

It sits above ``server.core`` (the Hub it serves) and may import every
part (docs/architecture.md, "The server's folders").
"""

-- wrk script: POST body.json as the Connect unary call's JSON body.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("body.json", "rb"))
wrk.body = f:read("*a")
f:close()

import ArgumentParser
import Foundation
import TodoKit
import TodoWeb

/// `todo serve --port 8080`: the web page and the JSON API on 127.0.0.1, until Ctrl-C.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the list as a web page with a JSON API on 127.0.0.1.",
        discussion: """
            Prints the address it listens on, then serves until SIGINT (Ctrl-C) or SIGTERM: it \
            stops taking connections, answers the requests under way, and closes the store.
            """
    )

    @ParentCommand var root: TodoCommand

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
    }

    func run() async throws {
        try await Session.run(root, author: "web") { session in
            let server = TodoServer(services: session.services, host: "127.0.0.1", port: port)
            try await server.run { url in
                Printer.line("Serving the to-do list at \(url) (Ctrl-C stops).")
            }
            try session.services.persistence.close()
            Printer.line("Stopped; the store is closed.")
        }
    }
}

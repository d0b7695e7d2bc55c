import Foundation
import Testing

@testable import Strata

/// Where stores go by default on Linux: the XDG base directory specification's data home.
@Suite("Default store directory")
struct DefaultDirectoryTests {
    private func directory(_ environment: [String: String]) -> String {
        NSPersistentContainer.defaultDirectoryURL(environment: environment, programName: "app").path
    }

    @Test func xdgDataHomeComesFirst() {
        #expect(directory(["XDG_DATA_HOME": "/data/x", "HOME": "/tmp/x"]) == "/data/x/app")
    }

    @Test func homeIsFollowedWithoutXdgDataHome() {
        #expect(directory(["HOME": "/tmp/x"]) == "/tmp/x/.local/share/app")
        // The specification ignores an empty or relative XDG_DATA_HOME.
        #expect(directory(["XDG_DATA_HOME": "", "HOME": "/tmp/x"]) == "/tmp/x/.local/share/app")
        #expect(directory(["XDG_DATA_HOME": "relative", "HOME": "/tmp/y"]) == "/tmp/y/.local/share/app")
    }

    @Test func thePasswordDatabaseIsTheLastResort() throws {
        let home = try #require(FileManager.default.homeDirectory(forUser: NSUserName())).path
        #expect(directory([:]) == URL(fileURLWithPath: home).appendingPathComponent(".local/share/app").path)
        #expect(directory(["HOME": ""]) == directory([:]))
    }

    #if !canImport(Darwin)
        @Test func theProcessEnvironmentIsRead() {
            let environment = ProcessInfo.processInfo.environment
            let expected = NSPersistentContainer.defaultDirectoryURL(
                environment: environment, programName: ProcessInfo.processInfo.processName)
            #expect(NSPersistentContainer.defaultDirectoryURL() == expected)
        }
    #endif
}

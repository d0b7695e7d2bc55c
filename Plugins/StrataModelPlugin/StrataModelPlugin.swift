import PackagePlugin

@main
struct StrataModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] { [] }
}

// Server reflection (service/reflection/) over a real connection on
// loopback, through both grpc.reflection.v1 and v1alpha: the services
// listed, every file fetched by name and by symbol, json_name on every
// field, the comments of the .proto files, errors that name what was asked,
// and reflection off.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "google/protobuf/compiler/importer.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "grpc/reflection/v1/reflection.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptor;
using google::protobuf::FileDescriptorProto;
using google::protobuf::SourceLocation;
using testing::HasSubstr;
using testing::UnorderedElementsAre;

const std::vector<std::string> kServedFiles = {
    "halma/v1/halma.proto", "grpc/health/v1/health.proto",
    "grpc/reflection/v1/reflection.proto",
    "grpc/reflection/v1alpha/reflection.proto"};

// One reflection stream of either version. The two versions' messages are
// the same under two package names, so the test speaks v1 messages and
// converts them to v1alpha's through their bytes.
template <typename Package>
class Reflection {
 public:
  using Request = typename Package::Request;
  using Response = typename Package::Response;

  explicit Reflection(std::shared_ptr<grpc::Channel> channel)
      : stub_(Package::Stub::NewStub(channel)) {
    context_.set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(30));
    stream_ = stub_->ServerReflectionInfo(&context_);
  }

  // Sends `request` and reads its answer; false when the stream failed.
  bool Ask(const grpc::reflection::v1::ServerReflectionRequest& request,
           grpc::reflection::v1::ServerReflectionResponse* response) {
    Request sent;
    if (!sent.ParseFromString(request.SerializeAsString())) return false;
    if (!stream_->Write(sent)) return false;
    Response answer;
    if (!stream_->Read(&answer)) return false;
    return response->ParseFromString(answer.SerializeAsString());
  }

  grpc::Status Finish() {
    stream_->WritesDone();
    return stream_->Finish();
  }

 private:
  std::unique_ptr<typename Package::Stub::StubInterface> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriterInterface<Request, Response>> stream_;
};

struct V1 {
  using Stub = grpc::reflection::v1::ServerReflection;
  using Request = grpc::reflection::v1::ServerReflectionRequest;
  using Response = grpc::reflection::v1::ServerReflectionResponse;
  static constexpr const char* kName = "v1";
};
struct V1Alpha {
  using Stub = grpc::reflection::v1alpha::ServerReflection;
  using Request = grpc::reflection::v1alpha::ServerReflectionRequest;
  using Response = grpc::reflection::v1alpha::ServerReflectionResponse;
  static constexpr const char* kName = "v1alpha";
};

grpc::reflection::v1::ServerReflectionRequest ByFilename(
    const std::string& name) {
  grpc::reflection::v1::ServerReflectionRequest request;
  request.set_file_by_filename(name);
  return request;
}

grpc::reflection::v1::ServerReflectionRequest BySymbol(
    const std::string& symbol) {
  grpc::reflection::v1::ServerReflectionRequest request;
  request.set_file_containing_symbol(symbol);
  return request;
}

std::vector<FileDescriptorProto> Files(
    const grpc::reflection::v1::ServerReflectionResponse& response) {
  std::vector<FileDescriptorProto> files;
  for (const std::string& bytes :
       response.file_descriptor_response().file_descriptor_proto()) {
    FileDescriptorProto file;
    EXPECT_TRUE(file.ParseFromString(bytes));
    files.push_back(std::move(file));
  }
  return files;
}

// The .proto files as protoc's parser reads them from source, with their
// comments: what reflection should serve.
class SourceFiles {
 public:
  SourceFiles() : importer_(&tree_, &errors_) {
    tree_.MapPath("", HALMA_PROTO_DIR);
    tree_.MapPath("", HALMA_GRPC_PROTO_DIR);
  }
  const FileDescriptor* Import(const std::string& name) {
    return importer_.Import(name);
  }

 private:
  class Errors : public google::protobuf::compiler::MultiFileErrorCollector {
   public:
    void AddError(const std::string& file, int line, int column,
                  const std::string& message) override {
      ADD_FAILURE() << file << ":" << line << ":" << column << ": " << message;
    }
  };
  google::protobuf::compiler::DiskSourceTree tree_;
  Errors errors_;
  google::protobuf::compiler::Importer importer_;
};

// Every (path, leading comment) of the services, methods, messages, fields,
// enums and enum values of `file`.
std::map<std::vector<int>, std::string> Comments(const FileDescriptor* file) {
  FileDescriptorProto proto;
  file->CopySourceCodeInfoTo(&proto);
  std::map<std::vector<int>, std::string> comments;
  for (const auto& location : proto.source_code_info().location()) {
    if (!location.has_leading_comments()) continue;
    comments[std::vector<int>(location.path().begin(), location.path().end())] =
        location.leading_comments();
  }
  return comments;
}

// Every field of `message` and its nested messages, for the json_name
// check.
void CollectFields(
    const google::protobuf::DescriptorProto& message, const std::string& scope,
    std::vector<
        std::pair<std::string, const google::protobuf::FieldDescriptorProto*>>*
        out) {
  const std::string name = scope + "." + message.name();
  for (const auto& field : message.field()) {
    out->push_back({name + "." + field.name(), &field});
  }
  for (const auto& nested : message.nested_type()) {
    CollectFields(nested, name, out);
  }
}

template <typename Package>
class ReflectionTest : public testing::Test {
 protected:
  void SetUp() override {
    server_ = LoopbackServer::Start();
    ASSERT_NE(server_, nullptr);
    channel_ = server_->channel();
  }
  std::unique_ptr<LoopbackServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

using Versions = testing::Types<V1, V1Alpha>;
class VersionName {
 public:
  template <typename T>
  static std::string GetName(int) {
    return T::kName;
  }
};
TYPED_TEST_SUITE(ReflectionTest, Versions, VersionName);

TYPED_TEST(ReflectionTest, ListsEveryServiceOfTheServer) {
  Reflection<TypeParam> reflection(this->channel_);
  grpc::reflection::v1::ServerReflectionRequest request;
  request.set_list_services("*");
  grpc::reflection::v1::ServerReflectionResponse response;
  ASSERT_TRUE(reflection.Ask(request, &response));
  std::vector<std::string> names;
  for (const auto& service : response.list_services_response().service()) {
    names.push_back(service.name());
  }
  EXPECT_THAT(names, UnorderedElementsAre(
                         "halma.v1.HalmaRules", "grpc.health.v1.Health",
                         "grpc.reflection.v1.ServerReflection",
                         "grpc.reflection.v1alpha.ServerReflection"));
  EXPECT_EQ(response.original_request().list_services(), "*");
  EXPECT_TRUE(reflection.Finish().ok());
}

// Every field of every served file has the json_name that proto3's JSON
// mapping gives it (the one the compiled-in descriptors compute), and the
// comments are those of the .proto sources.
TYPED_TEST(ReflectionTest, EveryFileCarriesJsonNamesAndComments) {
  Reflection<TypeParam> reflection(this->channel_);
  SourceFiles sources;
  for (const std::string& name : kServedFiles) {
    SCOPED_TRACE(name);
    grpc::reflection::v1::ServerReflectionResponse response;
    ASSERT_TRUE(reflection.Ask(ByFilename(name), &response));
    ASSERT_FALSE(response.has_error_response())
        << response.error_response().error_message();
    std::vector<FileDescriptorProto> files = Files(response);
    ASSERT_FALSE(files.empty());
    const FileDescriptorProto& file = files[0];
    EXPECT_EQ(file.name(), name);

    std::vector<
        std::pair<std::string, const google::protobuf::FieldDescriptorProto*>>
        fields;
    for (const auto& message : file.message_type()) {
      CollectFields(message, file.package(), &fields);
    }
    ASSERT_FALSE(fields.empty());
    for (const auto& [full_name, field] : fields) {
      const google::protobuf::FieldDescriptor* compiled =
          DescriptorPool::generated_pool()->FindFieldByName(full_name);
      ASSERT_NE(compiled, nullptr) << full_name;
      EXPECT_TRUE(field->has_json_name()) << full_name;
      EXPECT_EQ(field->json_name(), compiled->json_name()) << full_name;
    }

    const FileDescriptor* source = sources.Import(name);
    ASSERT_NE(source, nullptr);
    std::map<std::vector<int>, std::string> served;
    for (const auto& location : file.source_code_info().location()) {
      if (!location.has_leading_comments()) continue;
      served[std::vector<int>(location.path().begin(), location.path().end())] =
          location.leading_comments();
    }
    std::map<std::vector<int>, std::string> expected = Comments(source);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(served.size(), expected.size());
    // Path by path, so that a difference names its place.
    for (const auto& [path, comment] : expected) {
      auto found = served.find(path);
      ASSERT_NE(found, served.end())
          << "no comment served at path " << testing::PrintToString(path);
      EXPECT_EQ(found->second, comment)
          << "at path " << testing::PrintToString(path);
    }
  }
  EXPECT_TRUE(reflection.Finish().ok());
}

// The API's own documentation: the service, each method and each message
// and enum of halma.proto has a leading comment, and a tool asking for the
// service by name gets the file that holds it.
TYPED_TEST(ReflectionTest, TheServiceMethodsAndMessagesAreDocumented) {
  Reflection<TypeParam> reflection(this->channel_);
  grpc::reflection::v1::ServerReflectionResponse response;
  ASSERT_TRUE(reflection.Ask(BySymbol("halma.v1.HalmaRules"), &response));
  std::vector<FileDescriptorProto> files = Files(response);
  ASSERT_EQ(files.size(), 1u) << "halma.proto imports nothing";
  DescriptorPool pool;
  const FileDescriptor* file = pool.BuildFile(files[0]);
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(file->service_count(), 1);
  const auto* service = file->service(0);
  EXPECT_EQ(service->full_name(), "halma.v1.HalmaRules");
  SourceLocation location;
  ASSERT_TRUE(service->GetSourceLocation(&location));
  EXPECT_THAT(
      location.leading_comments,
      HasSubstr("Adjudicates Halma positions, moves and game records."));
  // Every method of the compiled-in service, each documented.
  ASSERT_EQ(service->method_count(), v1::ValidateMoveRequest::descriptor()
                                         ->file()
                                         ->service(0)
                                         ->method_count());
  ASSERT_EQ(service->method_count(), 7);
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string what = service->method(i)->full_name();
    SCOPED_TRACE(what);
    ASSERT_TRUE(service->method(i)->GetSourceLocation(&location));
    EXPECT_GT(location.leading_comments.size(), 10u);
  }
  for (int i = 0; i < file->message_type_count(); ++i) {
    const std::string what = file->message_type(i)->full_name();
    SCOPED_TRACE(what);
    ASSERT_TRUE(file->message_type(i)->GetSourceLocation(&location));
    EXPECT_GT(location.leading_comments.size(), 10u);
  }
  for (int i = 0; i < file->enum_type_count(); ++i) {
    const std::string what = file->enum_type(i)->full_name();
    SCOPED_TRACE(what);
    ASSERT_TRUE(file->enum_type(i)->GetSourceLocation(&location));
    EXPECT_GT(location.leading_comments.size(), 10u);
  }
  const auto* legal_moves =
      pool.FindMessageTypeByName("halma.v1.ValidateMoveResponse");
  ASSERT_NE(legal_moves, nullptr);
  EXPECT_EQ(legal_moves->FindFieldByName("position_after")->json_name(),
            "positionAfter");
  EXPECT_TRUE(reflection.Finish().ok());
}

// Symbols of every kind lead to their file; imports are sent once per
// stream (as gRPC's implementation does), the file asked for every time.
TYPED_TEST(ReflectionTest, FindsFilesBySymbolOfEveryKind) {
  Reflection<TypeParam> reflection(this->channel_);
  const std::pair<std::string, std::string> cases[] = {
      {"halma.v1.HalmaRules", "halma/v1/halma.proto"},
      {"halma.v1.HalmaRules.LegalMoves", "halma/v1/halma.proto"},
      {"halma.v1.LegalMovesRequest", "halma/v1/halma.proto"},
      {"halma.v1.LegalMovesRequest.origin", "halma/v1/halma.proto"},
      {"halma.v1.Seat", "halma/v1/halma.proto"},
      {"halma.v1.SEAT_W", "halma/v1/halma.proto"},
      {"grpc.health.v1.Health", "grpc/health/v1/health.proto"},
      {"grpc.health.v1.HealthCheckResponse.ServingStatus",
       "grpc/health/v1/health.proto"},
      {"grpc.reflection.v1.ServerReflection",
       "grpc/reflection/v1/reflection.proto"},
      {"grpc.reflection.v1alpha.ServerReflectionRequest",
       "grpc/reflection/v1alpha/reflection.proto"},
  };
  for (const auto& [symbol, file_name] : cases) {
    SCOPED_TRACE(symbol);
    grpc::reflection::v1::ServerReflectionResponse response;
    ASSERT_TRUE(reflection.Ask(BySymbol(symbol), &response));
    ASSERT_FALSE(response.has_error_response())
        << response.error_response().error_message();
    std::vector<FileDescriptorProto> files = Files(response);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].name(), file_name);
    EXPECT_EQ(response.original_request().file_containing_symbol(), symbol);
  }
  EXPECT_TRUE(reflection.Finish().ok());
}

TYPED_TEST(ReflectionTest, UnknownNamesAreAnsweredAndTheStreamGoesOn) {
  Reflection<TypeParam> reflection(this->channel_);
  grpc::reflection::v1::ServerReflectionResponse response;

  ASSERT_TRUE(reflection.Ask(BySymbol("halma.v1.NoSuchThing"), &response));
  EXPECT_EQ(response.error_response().error_code(),
            static_cast<int>(grpc::StatusCode::NOT_FOUND));
  EXPECT_THAT(response.error_response().error_message(),
              HasSubstr("file_containing_symbol: \"halma.v1.NoSuchThing\": "
                        "no such symbol, expected a fully qualified name"));

  // A long name is quoted cut, not echoed whole.
  ASSERT_TRUE(reflection.Ask(ByFilename(std::string(50000, 'x')), &response));
  EXPECT_EQ(response.error_response().error_code(),
            static_cast<int>(grpc::StatusCode::NOT_FOUND));
  EXPECT_THAT(response.error_response().error_message(),
              HasSubstr("(cut: 50000 bytes in all)"));
  EXPECT_THAT(response.error_response().error_message(),
              HasSubstr("expected one of halma/v1/halma.proto"));
  EXPECT_LT(response.error_response().error_message().size(), 400u);

  grpc::reflection::v1::ServerReflectionRequest extension;
  extension.mutable_file_containing_extension()->set_containing_type(
      "halma.v1.Move");
  extension.mutable_file_containing_extension()->set_extension_number(100);
  ASSERT_TRUE(reflection.Ask(extension, &response));
  EXPECT_EQ(response.error_response().error_code(),
            static_cast<int>(grpc::StatusCode::NOT_FOUND));
  EXPECT_THAT(response.error_response().error_message(),
              HasSubstr("extension_number: 100: halma.v1.Move has no "
                        "extension"));

  grpc::reflection::v1::ServerReflectionRequest numbers;
  numbers.set_all_extension_numbers_of_type("halma.v1.Move");
  ASSERT_TRUE(reflection.Ask(numbers, &response));
  EXPECT_FALSE(response.has_error_response());
  EXPECT_EQ(response.all_extension_numbers_response().base_type_name(),
            "halma.v1.Move");
  EXPECT_EQ(response.all_extension_numbers_response().extension_number_size(),
            0);
  numbers.set_all_extension_numbers_of_type("halma.v1.Nope");
  ASSERT_TRUE(reflection.Ask(numbers, &response));
  EXPECT_EQ(response.error_response().error_code(),
            static_cast<int>(grpc::StatusCode::NOT_FOUND));

  ASSERT_TRUE(reflection.Ask(grpc::reflection::v1::ServerReflectionRequest(),
                             &response));
  EXPECT_EQ(response.error_response().error_code(),
            static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_THAT(response.error_response().error_message(),
              HasSubstr("message_request: none set"));

  // After all of that the stream still answers.
  ASSERT_TRUE(reflection.Ask(ByFilename("halma/v1/halma.proto"), &response));
  EXPECT_EQ(Files(response).size(), 1u);
  EXPECT_TRUE(reflection.Finish().ok());
}

TEST(ReflectionFilesTest, TheFileAskedForIsSentEveryTime) {
  // No served file imports another (so no import is ever held back); the
  // file asked for comes back on every request of the stream.
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  Reflection<V1> reflection(server->channel());
  for (int i = 0; i < 2; ++i) {
    grpc::reflection::v1::ServerReflectionResponse response;
    ASSERT_TRUE(
        reflection.Ask(ByFilename("grpc/health/v1/health.proto"), &response));
    ASSERT_EQ(Files(response).size(), 1u);
  }
  EXPECT_TRUE(reflection.Finish().ok());
}

TEST(ReflectionStreamTest, BytesThatDoNotParseEndTheStreamNamingTheField) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  for (const char* method :
       {"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"}) {
    SCOPED_TRACE(method);
    grpc::GenericStub stub(server->channel());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    grpc::CompletionQueue cq;
    auto call = stub.PrepareCall(&context, method, &cq);
    void* tag;
    bool ok;
    call->StartCall(reinterpret_cast<void*>(1));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    // Field 4 (file_containing_symbol), a string of 3 bytes, not UTF-8.
    grpc::Slice slice(std::string("\x22\x03\xff\xfe\xfd", 5));
    grpc::ByteBuffer bytes(&slice, 1);
    call->Write(bytes, reinterpret_cast<void*>(2));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    grpc::Status status;
    call->Finish(&status, reinterpret_cast<void*>(3));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(),
                HasSubstr("file_containing_symbol: not valid UTF-8"));
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {
    }
  }
}

TEST(ReflectionOffTest, NeitherVersionIsServedWhenDisabled) {
  ServerConfig config = LoopbackConfig();
  config.reflection = false;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  EXPECT_THAT((*server)->ListeningLine(), HasSubstr("reflection off"));
  grpc::reflection::v1::ServerReflectionRequest request;
  request.set_list_services("*");
  grpc::reflection::v1::ServerReflectionResponse response;
  {
    Reflection<V1> v1(server->channel());
    EXPECT_FALSE(v1.Ask(request, &response));
    EXPECT_EQ(v1.Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
  {
    Reflection<V1Alpha> v1alpha(server->channel());
    EXPECT_FALSE(v1alpha.Ask(request, &response));
    EXPECT_EQ(v1alpha.Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
}

}  // namespace
}  // namespace halma::service

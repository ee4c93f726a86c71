// Swagger UI for /openapi.json, from the assets this service serves itself (no CDN).
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", deepLinking: true });
